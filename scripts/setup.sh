#!/usr/bin/env bash
# Installs what building kvbench needs on Debian: cgo headers for libibverbs
# and librdmacm, and Open MPI (mpi.h and mpirun) for the MPI build and its
# test. Does nothing when they are already there.
set -euo pipefail
need=()
[ -f /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
[ -f /usr/include/rdma/rdma_cma.h ] || need+=(librdmacm-dev)
command -v gcc >/dev/null || need+=(gcc)
[ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || need+=(libopenmpi-dev)
command -v mpirun >/dev/null || need+=(openmpi-bin)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "setup: missing ${need[*]}; run as root or: sudo apt-get install -y ${need[*]}" >&2
	exit 1
fi
echo "setup: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" rdma-core ibverbs-providers >/dev/null
