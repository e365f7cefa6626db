#!/bin/bash
# run.sh: run a command against a real kernel RDMA stack (Soft-RoCE) inside
# a throw-away qemu guest, and exit with the command's status.
#
#   run.sh [--kvm] [--mem SIZE] [--timeout SECS] [--kernel-log] SHAREDIR -- CMD...
#
# SHAREDIR is shared into the guest at /mnt (9p) and CMD runs there, with
# rxe0 on a dummy netdev d0 at 10.0.0.1, RDMAKV_ADDR=10.0.0.1,
# KVBENCH_IN_VM=1 and an unlimited memlock limit. Host-built binaries in
# SHAREDIR run unchanged: every shared library they (and the bundled RDMA
# tools) link against is copied into the initramfs.
#
# Exit status: CMD's own status; 124 if the guest timed out; 125 if the rig
# failed (no kernel, boot failure, no RDMA device, guest never reported).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${KVBENCH_VM_CACHE:-/var/cache/kvbench-rdma-vm}
MULTIARCH=x86_64-linux-gnu
RIG_FAIL=125

usage() {
	cat >&2 <<'EOF'
usage: run.sh [--kvm] [--mem SIZE] [--timeout SECS] [--kernel-log] SHAREDIR -- CMD...
  --kvm          use hardware virtualisation (-accel kvm -cpu host) instead of TCG
  --mem SIZE     guest memory, qemu syntax (default 1G)
  --timeout SECS kill the guest after SECS seconds (default 300)
  --kernel-log   show the full kernel log on the console (default: warnings only)
EOF
	exit 2
}
die() {
	printf 'rdma-vm: error: %s\n' "$*" >&2
	exit "$RIG_FAIL"
}

KVM=0 MEM=1G TIMEOUT=300 KLOG=0
while (($#)); do
	case $1 in
	--kvm) KVM=1 ;;
	--mem) MEM=${2:?--mem needs a size} && shift ;;
	--timeout) TIMEOUT=${2:?--timeout needs seconds} && shift ;;
	--kernel-log) KLOG=1 ;;
	-h | --help) usage ;;
	--) usage ;;
	-*) printf 'rdma-vm: unknown option %s\n' "$1" >&2 && usage ;;
	*) break ;;
	esac
	shift
done
(($# >= 3)) && [[ $2 == -- ]] || usage
SHARE=$1
shift 2
[[ -d $SHARE ]] || die "share directory $SHARE does not exist"
SHARE=$(cd "$SHARE" && pwd)
[[ $TIMEOUT =~ ^[0-9]+$ && $TIMEOUT -gt 0 ]] || die "--timeout wants a positive number of seconds, got '$TIMEOUT'"
[[ $MEM =~ ^[0-9]+[KMGT]?$ ]] || die "--mem wants a size like 512M or 1G, got '$MEM'"

if [[ ! -f $CACHE/current.env ]]; then
	"$HERE/setup.sh" || die "setup.sh failed"
fi
# shellcheck source=/dev/null
. "$CACHE/current.env"
KDIR=$CACHE/$KVER
[[ -f $KDIR/.done && -f $KDIR/vmlinux ]] || die "kernel cache $KDIR is incomplete; run $HERE/setup.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdma-vm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# canon maps a library path onto the merged-/usr layout the initramfs uses,
# so no file is ever written through the /lib -> usr/lib symlinks.
canon() {
	case $1 in
	/lib/* | /lib64/* | /bin/* | /sbin/*) printf '/usr%s' "$1" ;;
	*) printf '%s' "$1" ;;
	esac
}

# libs_of FILE...: the shared objects each dynamically linked FILE needs,
# one absolute path a line. A library ldd cannot find is a hard error: the
# guest would fail with a loader message far from the cause.
libs_of() {
	local f out
	for f in "$@"; do
		out=$(ldd "$f" 2>&1) || continue # static or not an executable
		if grep -q 'not found' <<<"$out"; then
			die "$f: $(grep 'not found' <<<"$out" | tr -s ' \t' ' ' | paste -sd,)"
		fi
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$out"
	done
}

# add_files TREE PATH...: copy each PATH (symlinks resolved) to its
# canonical place under TREE.
add_files() {
	local tree=$1 p dst
	shift
	for p in "$@"; do
		dst=$tree$(canon "$p")
		[[ -e $dst ]] && continue
		mkdir -p "$(dirname "$dst")"
		cp -L "$p" "$dst"
	done
}

mkcpio() { (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet); }

# Tools every guest gets: perftest, rdma_cm utilities and the iproute2
# binaries (busybox's ip cannot create rxe links or veth pairs).
TOOLS=(
	/usr/bin/ip /usr/bin/rdma
	/usr/bin/ib_send_lat /usr/bin/ib_read_lat /usr/bin/ib_write_lat
	/usr/bin/ib_send_bw /usr/bin/ib_read_bw /usr/bin/ib_write_bw
	/usr/bin/rping /usr/bin/ucmatose
	/usr/bin/ibv_devinfo /usr/bin/ibv_devices /usr/bin/ibv_rc_pingpong
)
# Loaded with dlopen, so ldd never names them: the rxe provider (libibverbs)
# and libgcc_s (glibc, for pthread_exit/cancel).
DLOPENED=(
	/usr/lib/$MULTIARCH/libibverbs/librxe-rdmav34.so
	/usr/lib/$MULTIARCH/libgcc_s.so.1
)

# The guest's /init. It reports through $STATUS in the share: a number is
# CMD's exit status, "setup: ..." a rig failure.
write_init() {
	cat >"$1" <<'EOF'
#!/bin/sh
/usr/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
. /run.env
SHARED=0
fail() {
	echo "rdma-vm guest: setup failed: $*"
	[ $SHARED = 1 ] && echo "setup: $*" >"/mnt/$STATUS" && sync
	poweroff -f
}
for m in $(cat /lib/modules/load-order); do
	insmod "/lib/modules/$m.ko" || fail "insmod $m"
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 host0 /mnt || fail "mount 9p share"
SHARED=1
/usr/bin/ip link set lo up || fail "lo up"
/usr/bin/ip link add d0 type dummy || fail "create dummy d0"
/usr/bin/ip addr add 10.0.0.1/24 dev d0 || fail "address d0"
/usr/bin/ip link set d0 up || fail "d0 up"
/usr/bin/rdma link add rxe0 type rxe netdev d0 || fail "rdma link add rxe0"
i=0
while [ ! -e /dev/infiniband/uverbs0 ] || [ ! -e /dev/infiniband/rdma_cm ]; do
	i=$((i + 1))
	[ $i -gt 50 ] && fail "no /dev/infiniband/uverbs0 or rdma_cm after rdma link add"
	sleep 0.1
done
ulimit -l unlimited || fail "ulimit -l unlimited"
export RDMAKV_ADDR=10.0.0.1 KVBENCH_IN_VM=1
cd /mnt || fail "cd /mnt"
echo "rdma-vm guest: rxe0 up on d0 10.0.0.1, clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource); running command"
sh /cmd </dev/null
rc=$?
echo "rdma-vm guest: command exited with status $rc"
echo "$rc" >"/mnt/$STATUS"
sync
poweroff -f
EOF
	chmod 755 "$1"
}

# build_base prints the path of the cached base initramfs: busybox, kernel
# modules, RDMA tools and their libraries, /init. Rebuilt whenever this
# script, the kernel or any package it draws files from changes.
build_base() {
	local key out tree
	key=$({
		cat "${BASH_SOURCE[0]}" "$KDIR/load-order" "$KDIR/version"
		dpkg-query -W busybox-static rdma-core ibverbs-providers libibverbs1 librdmacm1 \
			perftest rdmacm-utils ibverbs-utils iproute2 libc6 libgcc-s1 2>/dev/null
	} | sha256sum | cut -c1-16)
	out=$KDIR/initramfs-base-$key.cpio
	if [[ ! -f $out ]]; then
		tree=$WORK/base
		mkdir -p "$tree"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,mnt,etc,run}
		ln -s usr/bin "$tree/bin"
		ln -s usr/sbin "$tree/sbin"
		ln -s usr/lib "$tree/lib"
		ln -s usr/lib64 "$tree/lib64"
		cp /bin/busybox "$tree/usr/bin/busybox"
		ln -s busybox "$tree/usr/bin/sh"
		mkdir -p "$tree/usr/lib/modules"
		cp "$KDIR"/modules/*.ko "$KDIR/load-order" "$tree/usr/lib/modules/"
		add_files "$tree" "${TOOLS[@]}" "${DLOPENED[@]}"
		libs_of "${TOOLS[@]}" "${DLOPENED[@]}" >"$WORK/base.libs"
		# shellcheck disable=SC2046
		add_files "$tree" $(sort -u "$WORK/base.libs")
		mkdir -p "$tree/etc/libibverbs.d"
		cp /etc/libibverbs.d/rxe.driver "$tree/etc/libibverbs.d/"
		printf 'root:x:0:0:root:/tmp:/bin/sh\n' >"$tree/etc/passwd"
		printf 'root:x:0:\n' >"$tree/etc/group"
		printf '127.0.0.1 localhost\n10.0.0.1 rdma-vm\n' >"$tree/etc/hosts"
		write_init "$tree/init"
		(cd "$tree" && find . -type f -o -type l) | sed 's|^\.||' >"$WORK/base.list"
		mkcpio "$tree" >"$out.tmp.$$"
		mv "$out.tmp.$$" "$out"
		cp "$WORK/base.list" "$out.list"
		rm -f $(ls "$KDIR"/initramfs-base-*.cpio* 2>/dev/null | grep -v "$key") || true
	fi
	printf '%s' "$out"
}

# build_run writes the per-run initramfs layer: libraries the shared
# binaries need that the base lacks, the command and its status file name.
build_run() {
	local base=$1 out=$2 tree=$WORK/run elves=() f lib
	mkdir -p "$tree"
	while IFS= read -r -d '' f; do
		[[ $(head -c4 "$f" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] && elves+=("$f")
	done < <(find "$SHARE" -type f -perm -u+x -print0)
	local libdirs=""
	if ((${#elves[@]})); then
		libs_of "${elves[@]}" >"$WORK/run.libs"
		for lib in $(sort -u "$WORK/run.libs"); do
			grep -qxF "$(canon "$lib")" "$base.list" || add_files "$tree" "$lib"
			# The guest has no ld.so.cache: name directories outside the
			# loader's built-in search path.
			case $(dirname "$(canon "$lib")") in
			/usr/lib | /usr/lib64 | /usr/lib/$MULTIARCH) ;;
			*) [[ :$libdirs: == *":$(dirname "$(canon "$lib")"):"* ]] || libdirs+=:$(dirname "$(canon "$lib")") ;;
			esac
		done
	fi
	{
		printf '#!/bin/sh\nexec'
		for f in "${CMD[@]}"; do
			printf " '%s'" "${f//\'/\'\\\'\'}"
		done
		printf '\n'
	} >"$tree/cmd"
	printf 'STATUS=%s\n' "$STATUS" >"$tree/run.env"
	[[ -z $libdirs ]] || printf 'export LD_LIBRARY_PATH=%s\n' "${libdirs#:}" >>"$tree/run.env"
	mkcpio "$tree" >"$out"
}

CMD=("$@")
STATUS=.rdma-vm-status.$$.$RANDOM
rm -f "$SHARE/$STATUS"

BASE=$(build_base)
build_run "$BASE" "$WORK/run.cpio"
cat "$BASE" "$WORK/run.cpio" >"$WORK/initramfs.cpio"

if ((KVM)); then
	[[ -r /dev/kvm && -w /dev/kvm ]] || die "--kvm given but /dev/kvm is not usable"
	ACCEL=(-accel kvm -cpu host)
else
	ACCEL=(-accel tcg,thread=multi -cpu max)
fi
APPEND="console=ttyS0 panic=-1 oops=panic rdinit=/init"
# Under TCG the kernel does not trust the emulated TSC and falls back to
# HPET, whose every read is an emulated MMIO access: clock_gettime then
# costs about 2.3 us instead of 0.2 us. Go reads the clock in its scheduler
# and now and then around cgo calls, perftest does not (it times with
# rdtsc), so an HPET guest taxes only one side of every ratio. TCG's TSC
# follows the host clock and agrees across vCPUs, which is what the
# watchdog would check.
((KVM)) || APPEND+=" tsc=reliable"
((KLOG)) && APPEND+=" loglevel=7" || APPEND+=" quiet loglevel=4"

# console_filter drops the firmware's screen escapes and banner and the
# final power-down line; kernel warnings and the command's output pass.
# --kernel-log passes everything but the \r of the serial line ends.
console_filter() {
	if ((KLOG)); then
		sed -u 's/\r$//'
	else
		sed -u -e 's/\r$//' -e 's/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g' \
			-e '/^SeaBIOS (version/d' -e 's/^Booting from ROM\.\.//' \
			-e '/^\[ *[0-9.]*\] reboot: Power down$/d'
	fi
}

set +e
timeout --foreground -k 5 "$TIMEOUT" qemu-system-x86_64 \
	"${ACCEL[@]}" -smp 2 -m "$MEM" \
	-nographic -no-reboot -nic none \
	-kernel "$KDIR/vmlinux" -initrd "$WORK/initramfs.cpio" -append "$APPEND" \
	-virtfs "local,path=$SHARE,mount_tag=host0,security_model=none" \
	</dev/null 2>&1 | console_filter
QRC=${PIPESTATUS[0]}
set -e

if [[ ! -f $SHARE/$STATUS ]]; then
	if ((QRC == 124 || QRC == 137)); then
		printf 'rdma-vm: error: guest timed out after %ss without reporting a status\n' "$TIMEOUT" >&2
		exit 124
	fi
	die "guest never reported a status (qemu exit $QRC): the kernel did not boot or /init died"
fi
RESULT=$(cat "$SHARE/$STATUS")
rm -f "$SHARE/$STATUS"
case $RESULT in
setup:*) die "guest ${RESULT}" ;;
'' | *[!0-9]*) die "guest reported garbage status '$RESULT'" ;;
esac
if ((RESULT != 0)); then
	printf 'rdma-vm: command exited with status %s\n' "$RESULT" >&2
fi
exit "$RESULT"
