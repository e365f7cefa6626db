#!/bin/sh
# guest-bench.sh: the bench-rdma run inside the Soft-RoCE guest. perftest
# gives the raw verbs floor on rxe0; kvperf then measures the same shapes
# through rdmakv. Every report lands in bench/ in the share, where
# benchtable reads it. Iteration counts are short: under emulation this
# stays within a minute or two. kvserver and kvperf busy-poll, as
# perftest does (POLL=event here measures the event-driven path).
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
PORT=7471
POLL=busy
mkdir -p bench
rm -f bench/*

log "perftest baselines on rxe0"
PT_TAG=2 perftest_pair ib_send_lat -s 2 -n 5000
PT_TAG=2 perftest_pair ib_read_lat -s 2 -n 5000
PT_TAG=65536 perftest_pair ib_read_lat -s 65536 -n 500
PT_TAG=1048576 perftest_pair ib_write_bw -s 1048576 -n 200

# kvperf_case NAME ARGS... runs one kvperf bench case against the server
# and keeps its JSON report as bench/kvperf-NAME.json.
kvperf_case() {
	_case=$1
	shift
	log "kvperf $_case"
	timeout 180 ./kvperf -addr "$RDMAKV_ADDR:$PORT" -transport verbs -poll "$POLL" -bench "$@" \
		>"bench/kvperf-$_case.json" || {
		cat "bench/kvperf-$_case.json" >&2
		die "kvperf $_case"
	}
	cat "bench/kvperf-$_case.json"
}

log "kvperf cases over verbs, $POLL polling"
./kvserver --transport verbs --poll "$POLL" --listen "$RDMAKV_ADDR:$PORT" &
srv=$!
wait_listen $PORT $srv
kvperf_case get-eager-64 -op get -size 64 -n 5000
kvperf_case get-rdv-64k -op get -size 65536 -n 500
kvperf_case set-1m -op set -size 1048576 -n 200
stop_server $srv
log "PASS"
