#!/bin/sh
# guest-test.sh: the verbs test run inside the Soft-RoCE guest (make
# test-rdma). Runs the device tests of rdmakv/verbs, then an end-to-end
# set/get/verify run of kvperf against kvserver over the verbs transport.
# Any failure exits non-zero.
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
PORT=7471

log "verbs device tests"
./verbs.test -test.v -test.count=1 -test.timeout=240s || die "verbs.test"

log "end to end: kvserver + kvperf -check over verbs"
./kvserver --transport verbs --listen "$RDMAKV_ADDR:$PORT" &
srv=$!
wait_listen $PORT $srv
./kvperf -addr "$RDMAKV_ADDR:$PORT" -transport verbs -check || {
	kill $srv 2>/dev/null
	die "kvperf -check"
}
stop_server $srv
log "PASS"
