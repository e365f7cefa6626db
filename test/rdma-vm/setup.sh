#!/bin/bash
# setup.sh: prepare everything the Soft-RoCE test guest needs, once.
#
# Installs the host packages (qemu, busybox, rdma-core, perftest, ...),
# fetches Debian's own kernel package without installing it, and caches the
# pieces the guest boots from under $KVBENCH_VM_CACHE, keyed by kernel
# version:
#   $CACHE/<kver>/vmlinux       uncompressed kernel (booted directly, PVH)
#   $CACHE/<kver>/modules/*.ko  the modules the guest loads, uncompressed
#   $CACHE/<kver>/load-order    those modules in insmod order
#   $CACHE/current.env          KVER=<kver>, read by run.sh
# Idempotent: a second run only checks and returns.
#
# Must run as root (apt-get). Needs no network once the cache is warm and the
# packages are installed.
set -euo pipefail

CACHE=${KVBENCH_VM_CACHE:-/var/cache/kvbench-rdma-vm}
MULTIARCH=x86_64-linux-gnu

log() { printf 'rdma-vm setup: %s\n' "$*" >&2; }
die() { printf 'rdma-vm setup: error: %s\n' "$*" >&2; exit 1; }

# Host packages. Each entry is "package:file-that-proves-it-is-there" so the
# warm path needs no dpkg database walk.
PKGS=(
	qemu-system-x86:/usr/bin/qemu-system-x86_64
	busybox-static:/bin/busybox
	rdma-core:/usr/sbin/rdma-ndd
	ibverbs-providers:/usr/lib/$MULTIARCH/libibverbs/librxe-rdmav34.so
	libibverbs-dev:/usr/include/infiniband/verbs.h
	librdmacm-dev:/usr/include/rdma/rdma_cma.h
	ibverbs-utils:/usr/bin/ibv_devinfo
	rdmacm-utils:/usr/bin/rping
	perftest:/usr/bin/ib_send_lat
	iproute2:/usr/bin/rdma
	kmod:/usr/bin/kmod
	cpio:/usr/bin/cpio
	xz-utils:/usr/bin/xz
	zstd:/usr/bin/zstd
	gzip:/usr/bin/gzip
	coreutils:/usr/bin/timeout
	binutils:/usr/bin/readelf
	gcc:/usr/bin/gcc
)

# Top-level modules the guest needs; their dependencies come from modprobe
# --show-depends on the unpacked tree. crc32_generic is listed explicitly:
# rxe asks the crypto API for crc32 at link creation and modules.dep does
# not record that.
TOP_MODULES=(
	virtio_pci 9pnet_virtio 9p
	crc32_generic
	ib_uverbs rdma_ucm rdma_rxe
	dummy veth
)

install_packages() {
	local missing=() e pkg file
	for e in "${PKGS[@]}"; do
		pkg=${e%%:*}
		file=${e#*:}
		[[ -e $file ]] || missing+=("$pkg")
	done
	((${#missing[@]} == 0)) && return 0
	[[ $(id -u) -eq 0 ]] || die "packages missing (${missing[*]}); run as root"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; then
		apt-get update -q >&2
		apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
	fi
}

# kernel_package prints the linux-image-<abi>-amd64 that linux-image-amd64
# depends on. Refreshes the package lists once if apt does not know it.
kernel_package() {
	local p
	p=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
	if [[ -z $p ]]; then
		apt-get update -q >&2 || true
		p=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
	fi
	printf '%s' "$p"
}

# extract_vmlinux VMLINUZ OUT: the bzImage carries the kernel as an xz
# stream; it starts at a 7zXZ magic. Try each match until one decompresses
# into an ELF image.
extract_vmlinux() {
	local in=$1 out=$2 off
	for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$in" | cut -d: -f1); do
		# xz stops at the end of its stream and tail may then die of SIGPIPE;
		# the ELF magic, not the pipeline status, says whether it worked.
		tail -c +$((off + 1)) "$in" 2>/dev/null | xz -dc --single-stream >"$out.tmp" 2>/dev/null || true
		if [[ $(head -c4 "$out.tmp" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done
	rm -f "$out.tmp"
	return 1
}

# decompress_module SRC DST: Debian may ship .ko, .ko.xz or .ko.zst; busybox
# insmod wants plain ELF.
decompress_module() {
	case $1 in
	*.ko.xz) xz -dc "$1" >"$2" ;;
	*.ko.zst) zstd -qdc "$1" >"$2" ;;
	*.ko.gz) gzip -dc "$1" >"$2" ;;
	*.ko) cp "$1" "$2" ;;
	*) die "unknown module format: $1" ;;
	esac
}

prepare_kernel() {
	local pkg=$1 kver=${1#linux-image-}
	local dir=$CACHE/$kver
	if [[ -f $dir/.done ]]; then
		printf 'KVER=%s\n' "$kver" >"$CACHE/current.env.tmp"
		mv "$CACHE/current.env.tmp" "$CACHE/current.env"
		return 0
	fi
	log "preparing kernel $kver"
	rm -rf "$dir"
	local work
	work=$(mktemp -d "$CACHE/.work.XXXXXX")
	# apt-get download drops privileges to _apt when it can write there.
	id _apt >/dev/null 2>&1 && chown _apt "$work"
	# shellcheck disable=SC2064
	trap "rm -rf '$work'" EXIT
	(cd "$work" && apt-get download -q "$pkg" >&2) ||
		die "apt-get download $pkg failed"
	local deb
	deb=$(ls "$work"/*.deb)
	dpkg-deb --field "$deb" Version >"$work/version"
	dpkg -x "$deb" "$work/root"
	[[ -d $work/root/lib/modules/$kver ]] || die "$pkg holds no /lib/modules/$kver"
	depmod -b "$work/root" "$kver"

	mkdir -p "$work/out/modules"
	extract_vmlinux "$work/root/boot/vmlinuz-$kver" "$work/out/vmlinux" ||
		die "no xz-compressed kernel found inside vmlinuz-$kver"

	# Dependency order: modprobe prints "insmod PATH" lines leaves first;
	# built-in modules print "builtin NAME" and need nothing.
	local m line path name seen=" "
	: >"$work/out/load-order"
	for m in "${TOP_MODULES[@]}"; do
		modprobe -d "$work/root" -S "$kver" --show-depends "$m" >"$work/deps" ||
			die "module $m not found in $pkg"
		while read -r line; do
			case $line in
			insmod\ *)
				path=${line#insmod }
				path=${path%% *}
				name=$(basename "$path")
				name=${name%%.ko*}
				[[ $seen == *" $name "* ]] && continue
				seen+="$name "
				decompress_module "$path" "$work/out/modules/$name.ko"
				echo "$name" >>"$work/out/load-order"
				;;
			esac
		done <"$work/deps"
	done
	cp "$work/version" "$work/out/version"
	touch "$work/out/.done"
	# A concurrent setup may have won the race; its result is as good.
	mv -T "$work/out" "$dir" 2>/dev/null || [[ -f $dir/.done ]] || die "cannot create $dir"
	rm -rf "$work"
	trap - EXIT
	printf 'KVER=%s\n' "$kver" >"$CACHE/current.env.tmp"
	mv "$CACHE/current.env.tmp" "$CACHE/current.env"
	log "kernel $kver ready: $(wc -l <"$dir/load-order") modules, vmlinux $(du -h "$dir/vmlinux" | cut -f1)"
}

main() {
	install_packages
	mkdir -p "$CACHE"
	# Warm path: the package lists have not changed since the cached kernel
	# was chosen, so the choice stands (apt-cache alone takes a second).
	if [[ -f $CACHE/current.env && $CACHE/current.env -nt /var/lib/apt/lists ]]; then
		local KVER=
		# shellcheck source=/dev/null
		. "$CACHE/current.env"
		[[ -n $KVER && -f $CACHE/$KVER/.done ]] && return 0
	fi
	local pkg
	pkg=$(kernel_package)
	if [[ -z $pkg ]]; then
		# Offline with a warm cache: keep using what is there.
		if [[ -f $CACHE/current.env ]]; then
			log "apt does not know linux-image-amd64; using cached kernel"
			return 0
		fi
		die "cannot find the kernel package linux-image-amd64 depends on"
	fi
	prepare_kernel "$pkg"
}

main "$@"
