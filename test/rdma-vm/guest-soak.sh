#!/bin/sh
# guest-soak.sh DURATION: kvsoak over verbs inside the Soft-RoCE guest
# (make soak-rdma, and a short one in make test-rdma): kvserver under
# verified load from kvbench and kvsoak's writers while faults run.
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
log "soak over verbs for ${1:?usage: guest-soak.sh DURATION}"
./kvsoak -bin . -transport verbs -listen "$RDMAKV_ADDR:7472" -duration "$1" -work soak || die "kvsoak over verbs"
