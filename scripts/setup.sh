#!/usr/bin/env bash
# Installs what building kvbench needs on Debian: gcc and the cgo headers of
# libibverbs and librdmacm; with "mpi", Open MPI as well (mpi.h and mpirun),
# which only the MPI build and its tests use; with "baselines", redis-server
# and memcached, which the tests drive beside rdmakv. Does nothing when
# they are already there.
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
*)
	echo "setup: unknown part '$1' (want nothing, mpi or baselines)" >&2
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
