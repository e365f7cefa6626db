#!/bin/sh
# guest-flow.sh: credit-based flow control over verbs (make test-rdma).
# kvbench drives 64 B eager GETs at 4 connections x depth 16 against
# kvserver --recv-depth 16 and at 16 x 32 against the defaults, each
# beside the same load against receives ample from the start (1024; 960
# for 16 connections, whose send queues 1024 would not leave room for),
# in turn. Every cell must be verified and carry rxe's hardware counters
# with no RNR NAK; the table of ops/s, p99 and requests resent after a
# lost packet (completer_retry_err, which rxe under emulation can count
# when an acknowledgement comes late) shows whether the tails follow the
# load. Soft-RoCE copies on the CPU both
# ways; the figures compare the runs with each other only.
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
PORT=7473
mkdir -p flow
printf '%-8s %-14s %10s %10s %8s\n' load kvserver ops/s p99[us] resent >flow/table.txt

# flow_case LOAD CONNS DEPTH LABEL [KVSERVER FLAGS...]: one kvbench run of
# CONNS x DEPTH against a fresh kvserver given the flags.
flow_case() {
	_load=$1 _c=$2 _d=$3 _label=$4
	shift 4
	_tag=$_load-$_label
	./kvserver --transport verbs --listen "$RDMAKV_ADDR:$PORT" --poll event "$@" >"flow/$_tag.server.log" 2>&1 &
	_srv=$!
	wait_listen $PORT $_srv
	./kvbench run workloads/flow.yaml --server "$RDMAKV_ADDR:$PORT" --connections "$_c" --depth "$_d" \
		-o "flow/$_tag" --quiet >/dev/null 2>"flow/$_tag.err" || {
		kill $_srv 2>/dev/null
		die "kvbench run $_tag: $(cat "flow/$_tag.err")"
	}
	stop_server $_srv
	_res=flow/$_tag/latest/results.json
	for _p in '"mismatches": 0' '"hw_counters"' '"send_rnr_err"'; do
		grep -qF "$_p" "$_res" || die "$_res lacks $_p"
	done
	for _k in send_rnr_err rcvd_rnr_err retry_rnr_exceeded_err; do
		! grep -qE "\"$_k\": [1-9]" "$_res" || die "$_tag: RNR NAKs: $(grep -oE "\"$_k\": [0-9]+" "$_res" | head -1)"
	done
	_re=$(grep -oE '"completer_retry_err": [0-9]+' "$_res" | head -1 | cut -d' ' -f2)
	_line=$(grep ' get ' "flow/$_tag/latest/summary.txt" | head -1)
	# shellcheck disable=SC2086 # split the summary row into its columns
	set -- $_line
	printf '%-8s %-14s %10s %10s %8s\n' "$_load" "$_label" "${14}" "${11}" "$_re" >>flow/table.txt
}

log "flow control: 4 x 16 against --recv-depth 16 and 1024, 16 x 32 against the defaults and 960"
flow_case 4x16 4 16 recv16 --recv-depth 16
flow_case 4x16 4 16 recv1024 --recv-depth 1024
flow_case 16x32 16 32 default
flow_case 16x32 16 32 recv960 --recv-depth 960 --max-recvs 3840
cat flow/table.txt
