#!/bin/sh
# guest-test.sh: the verbs test run inside the Soft-RoCE guest (make
# test-rdma). Runs the device tests of rdmakv/verbs, kvbench doctor, then end-to-end
# set/get/verify runs of kvperf, kvbench and the C API's kvcheck against
# kvserver (one scraped through run --metrics as it measures), and of kvbench against its embedded server, over the verbs
# transport, kvbench tune by server CPU over two loads and by capacity under
# a latency goal, the refusal of cells a server's limits rule out, flow
# control with few receives and many (guest-flow.sh), and a short soak
# (guest-soak.sh).
# Any failure exits non-zero.
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
PORT=7471

# check_run DIR PATTERN...: the newest run under DIR completed over verbs,
# found no bad value, and its results.json holds every PATTERN.
check_run() {
	_res=$1/latest/results.json
	shift
	for _p in '"end_reason": "completed"' '"name": "verbs"' '"mismatches": 0' "$@"; do
		grep -qF "$_p" "$_res" || die "$_res lacks $_p"
	done
	grep -q '"protocol": "rendezvous"' "$_res" || die "$_res has no rendezvous cell"
}

rm -rf e2e
log "verbs device tests"
./verbs.test -test.v -test.count=1 -test.timeout=480s -test.skip TestPortDownEndsConnections || die "verbs.test"

log "kvbench doctor lists the Soft-RoCE device and finds nothing that stops a run"
mkdir -p e2e
./kvbench doctor --format json >e2e/doctor.json || die "kvbench doctor: $(./kvbench doctor 2>&1)"
grep -qF '"software": "rxe (Soft-RoCE)"' e2e/doctor.json || die "kvbench doctor did not list rxe: $(cat e2e/doctor.json)"
grep -qF '"loopback": {}' e2e/doctor.json || die "kvbench doctor's loopback pair failed on rxe: $(grep -A5 '"loopback"' e2e/doctor.json)"
./kvbench doctor >e2e/doctor.txt || die "kvbench doctor: $(cat e2e/doctor.txt)"
cat e2e/doctor.txt
grep -q 'rdmakv grants per-grant windows, commits a rendezvous SET with WRITE_WITH_IMM' e2e/doctor.txt ||
	die "kvbench doctor did not say what the transport uses on rxe"

log "end to end: kvserver --auth-file + kvperf -check over verbs"
( umask 077 && head -c 32 /dev/urandom | base64 > e2e.secret )
MPORT=9464
./kvserver --transport verbs --listen "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret --metrics "127.0.0.1:$MPORT" &
srv=$!
wait_listen $PORT $srv
./kvperf -addr "$RDMAKV_ADDR:$PORT" -transport verbs -check -auth-file e2e.secret || {
	kill $srv 2>/dev/null
	die "kvperf -check"
}

log "end to end: the C API (libkvclient) over verbs against that kvserver"
KVBENCH_TRANSPORT=verbs KVBENCH_AUTH_FILE=e2e.secret ./kvcheck "$RDMAKV_ADDR:$PORT" || {
	kill $srv 2>/dev/null
	die "kvcheck (C API over verbs)"
}

log "end to end: kvbench run over verbs, busy polling, against that kvserver"
./kvbench run workloads/verify.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret --poll busy -o e2e/external --quiet || {
	kill $srv 2>/dev/null
	die "kvbench run --server"
}
check_run e2e/external '"client_poll": "busy"'

log "end to end: a mixed-size workload over verbs against that kvserver, every get checked"
./kvbench run workloads/mixed.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret -o e2e/mixed --quiet || {
	kill $srv 2>/dev/null
	die "kvbench run workloads/mixed.yaml"
}
check_run e2e/mixed '"distribution": "weighted' '"size_classes"' '"protocol": "eager"'

log "end to end: a trace replayed over verbs against that kvserver, its recorded misses the store's"
./kvbench run workloads/trace.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret -o e2e/trace --quiet || {
	kill $srv 2>/dev/null
	die "kvbench run workloads/trace.yaml"
}
check_run e2e/trace '"recorded_misses"' '"format": "twitter"'

log "end to end: kvbench run --metrics counts gets over verbs while its measure phases run"
./kvbench run workloads/verify.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret --metrics 127.0.0.1:9465 \
	--duration 5s -o e2e/metrics-run --quiet >e2e/metrics-run.dir 2>e2e/metrics-run.err &
mrun=$!
# The run serves metrics only while it lasts: a count seen here was live.
_i=0
until wget -q -O - http://127.0.0.1:9465/metrics 2>/dev/null |
	grep -qE '^kvbench_operations_total\{op="get",protocol="[a-z]+"\} [1-9]'; do
	_i=$((_i + 1))
	if [ $_i -gt 300 ] || ! kill -0 $mrun 2>/dev/null; then
		kill $mrun 2>/dev/null
		kill $srv 2>/dev/null
		die "kvbench run --metrics counted no get while it ran: $(cat e2e/metrics-run.err)"
	fi
	sleep 0.2
done
wait $mrun || {
	kill $srv 2>/dev/null
	die "kvbench run --metrics: $(cat e2e/metrics-run.err)"
}
check_run e2e/metrics-run

log "end to end: kvbench doctor --server over verbs: the server's limits, its secret, one request per protocol"
./kvbench doctor --server "$RDMAKV_ADDR:$PORT" --transport verbs --auth-file e2e.secret --format json >e2e/doctor-server.json || {
	kill $srv 2>/dev/null
	die "kvbench doctor --server: $(./kvbench doctor --server "$RDMAKV_ADDR:$PORT" --transport verbs --auth-file e2e.secret 2>&1)"
}
for want in '"max_eager"' '"rendezvous"'; do
	grep -qF "$want" e2e/doctor-server.json || die "kvbench doctor --server: no $want in $(cat e2e/doctor-server.json)"
done

log "end to end: kvserver --metrics counts the requests served over verbs, by op and protocol"
wget -q -O e2e/metrics.txt "http://127.0.0.1:$MPORT/metrics" || die "no metrics from kvserver --metrics"
for series in 'op="get",protocol="eager"' 'op="get",protocol="rendezvous"' 'op="set",protocol="eager"' 'op="set",protocol="rendezvous"'; do
	grep -qE "^rdmakv_requests_total\{$series\} [1-9]" e2e/metrics.txt ||
		die "rdmakv_requests_total{$series} is not counted: $(grep rdmakv_requests_total e2e/metrics.txt)"
done

log "end to end: two ranks over verbs against that kvserver, merged"
for r in 0 1; do
	./kvbench run workloads/verify.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret --rank $r --ranks 2 \
		-o e2e/ranks --quiet >e2e/rank$r.dir &
	eval "pid$r=\$!"
done
# shellcheck disable=SC2154 # pid0 and pid1 are set by the eval above
wait "$pid0" && wait "$pid1" || {
	kill $srv 2>/dev/null
	die "kvbench run --rank over verbs"
}

log "end to end: kvbench refuses, before measuring, cells that kvserver's limits rule out"
if ./kvbench run workloads/limits.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret -o e2e/limits --quiet 2>e2e/limits.err; then
	kill $srv 2>/dev/null
	die "kvbench run with a threshold above max eager succeeded"
fi
grep -q "threshold 2MiB is above the server's max eager" e2e/limits.err || die "no limits error: $(cat e2e/limits.err)"
[ ! -e e2e/limits ] || die "a refused run wrote e2e/limits"

log "end to end: kvbench tune over verbs: server CPU per op at two loads, then capacity under a p90 goal"
./kvbench tune workloads/tune-verify.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret --objective cpu \
	--connections 1,2 --repeats 2 -o e2e/tune-cpu >e2e/tune-cpu.out 2>&1 || {
	kill $srv 2>/dev/null
	die "kvbench tune --objective cpu: $(cat e2e/tune-cpu.out)"
}
tj=$(ls e2e/tune-cpu/*/tune.json)
for p in '"objective": "cpu"' '"connections": 2' '"server_cpu_ns_per_op"' '"cpu_scope": "client"' '"protocol_version"'; do
	grep -qF "$p" "$tj" || die "$tj lacks $p"
done
grep -q "winner by server CPU per op at each load" e2e/tune-cpu.out || die "tune printed no map: $(cat e2e/tune-cpu.out)"
./kvbench tune workloads/tune-verify.yaml --server "$RDMAKV_ADDR:$PORT" --auth-file e2e.secret --ops get \
	--slo p90=50ms -o e2e/tune-slo >e2e/tune-slo.out 2>&1 || {
	kill $srv 2>/dev/null
	die "kvbench tune --slo: $(cat e2e/tune-slo.out)"
}
grep -q '"capacity_ops": [1-9]' e2e/tune-slo/*/tune.json || die "no protocol met a 50ms p90 at any rate: $(cat e2e/tune-slo.out)"
stop_server $srv
./kvbench merge "$(cat e2e/rank0.dir)" "$(cat e2e/rank1.dir)" -o e2e/merged >e2e/merged.dir || die "kvbench merge"
merged=$(cat e2e/merged.dir)/results.json
grep -qF '"rank": 1' "$merged" || die "$merged has no rank 1 in its ranks block"
grep -qF '"mismatches": 0' "$merged" || die "$merged: verify found bad values"

log "end to end: kvbench run over verbs against its embedded server, event polling"
./kvbench run workloads/verify.yaml --poll event -o e2e/embedded --quiet || die "kvbench run, embedded server"
check_run e2e/embedded '"client_poll": "event"' '"server_poll": "event"' '"embedded_server": true'

log "end to end: kvbench run --transport auto picks verbs for its embedded server and says so"
./kvbench run workloads/verify.yaml --transport auto -o e2e/auto --quiet 2>e2e/auto.err || die "kvbench run --transport auto"
grep -q 'rdmakv: transport auto: using verbs' e2e/auto.err || die "auto did not say it chose verbs: $(cat e2e/auto.err)"
check_run e2e/auto '"client_poll": "busy"' '"server_poll": "busy"' '"embedded_server": true'

./guest-flow.sh
./guest-soak.sh 45s
# Last: it takes the rig's link down and up again.
log "verbs: a port going down ends its connections with ErrFatal"
./verbs.test -test.v -test.count=1 -test.timeout=120s -test.run TestPortDownEndsConnections || die "verbs.test TestPortDownEndsConnections"
log "PASS"
