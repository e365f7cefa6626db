#!/usr/bin/env bash
# Installs what building kvbench needs on Debian: gcc and the cgo headers of
# libibverbs and librdmacm; with "mpi", Open MPI as well (mpi.h and mpirun),
# which only the MPI build and its tests use; with "baselines", redis-server
# and memcached, which the tests drive beside rdmakv; with "memtier", what
# building memtier_benchmark (the memcached reference of make distortion)
# needs, unless MEMTIER names one or one is on PATH; with "browser",
# Debian's chromium, in which the tests of the HTML pages open them. Does
# nothing when they are already there.
set -euo pipefail
need=()
[ -f /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
[ -f /usr/include/rdma/rdma_cma.h ] || need+=(librdmacm-dev)
command -v gcc >/dev/null || need+=(gcc)
case "${1:-}" in
"") ;;
mpi)
	[ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || need+=(libopenmpi-dev)
	command -v mpirun >/dev/null || need+=(openmpi-bin)
	;;
baselines)
	command -v redis-server >/dev/null || need+=(redis-server)
	command -v memcached >/dev/null || need+=(memcached)
	;;
memtier)
	if [ -z "${MEMTIER:-}" ] && ! command -v memtier_benchmark >/dev/null; then
		command -v git >/dev/null || need+=(git)
		command -v make >/dev/null || need+=(make)
		command -v g++ >/dev/null || need+=(g++)
		command -v autoreconf >/dev/null || need+=(autoconf)
		command -v automake >/dev/null || need+=(automake)
		command -v libtoolize >/dev/null || need+=(libtool)
		command -v pkg-config >/dev/null || need+=(pkg-config)
		[ -f /usr/include/event2/event.h ] || need+=(libevent-dev)
		[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
	fi
	;;
browser)
	command -v chromium >/dev/null || need+=(chromium)
	;;
*)
	echo "setup: unknown part '$1' (want nothing, mpi, baselines, memtier or browser)" >&2
	exit 2
	;;
esac
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing ${need[*]}; run as root or: sudo apt-get install -y ${need[*]}" >&2
	exit 1
fi
echo "setup: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" rdma-core ibverbs-providers >/dev/null
