#!/bin/sh
# guest-adaptive.sh: make adaptive-rdma inside the Soft-RoCE guest, the
# adaptive policy beside fixed thresholds over verbs: kvbench tune on the
# weighted mix of 64 B to 1 MiB and on ETC at 1, 4 and 16 connections
# (interleaved, repeated), tune on single sizes (what exploring costs
# where one protocol wins), a run of 8 KiB to 32 KiB gets, which eager
# wins under Soft-RoCE (how long the policy takes to settle there), and
# three runs of an open-loop ramp of the mix (report --steps). The
# workloads set their own phases. Everything lands in adaptive/ in the
# share. Argument: SETTLE_MEASURE.
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
SETTLE_MEASURE=${1:-20s}
PORT=7471
rm -rf adaptive
mkdir -p adaptive
echo 0 >/proc/sys/kernel/randomize_va_space
[ "$(nproc)" -ge 2 ] || die "adaptive-rdma needs 2 CPUs in the guest, have $(nproc)"
# As sweep-rdma's server (guest-sweep.sh says why), with receives for 16
# connections of depth 8 (ETC).
SERVER_FLAGS="--poll busy --busy-idle 5ms --max-eager 2MiB --recv-depth 16 --max-recvs 288 --pool-size 512MiB"
echo "$SERVER_FLAGS" >adaptive/kvserver.txt
./kvbench version >adaptive/build.txt
# shellcheck disable=SC2086 # SERVER_FLAGS is several flags
taskset 2 ./kvserver --transport verbs $SERVER_FLAGS --listen "$RDMAKV_ADDR:$PORT" &
srv=$!
wait_listen $PORT $srv

KV="taskset 1 ./kvbench"
TUNE="--server $RDMAKV_ADDR:$PORT --transport verbs --poll event --connections 1,4,16"
log "tune the weighted mix at 1, 4 and 16 connections, adaptive beside the thresholds"
# shellcheck disable=SC2086
$KV tune workloads/adaptive-mixed.yaml $TUNE -o adaptive/tune-mixed >adaptive/tune-mixed.out || die "kvbench tune adaptive-mixed"
cat adaptive/tune-mixed.out
log "tune ETC at 1, 4 and 16 connections, adaptive beside the thresholds"
# shellcheck disable=SC2086
$KV tune workloads/adaptive-etc.yaml $TUNE -o adaptive/tune-etc >adaptive/tune-etc.out || die "kvbench tune adaptive-etc"
cat adaptive/tune-etc.out
log "tune single sizes: what exploring costs where one protocol wins"
$KV tune workloads/adaptive-single.yaml --server "$RDMAKV_ADDR:$PORT" --transport verbs --poll busy \
	-o adaptive/tune-single >adaptive/tune-single.out || die "kvbench tune adaptive-single"
cat adaptive/tune-single.out
log "adaptive settling on eager for 8 KiB to 32 KiB gets ($SETTLE_MEASURE)"
$KV run workloads/adaptive-settle.yaml --server "$RDMAKV_ADDR:$PORT" --transport verbs --poll busy \
	--duration "$SETTLE_MEASURE" -o adaptive/settle --quiet || die "kvbench run adaptive-settle"
$KV report adaptive/settle/latest | tee adaptive/settle.txt
log "a ramp of 100 to 400 ops/s of the weighted mix, three times"
$KV run workloads/adaptive-ramp.yaml --server "$RDMAKV_ADDR:$PORT" --repeat 3 -o adaptive/ramp --quiet ||
	die "kvbench run adaptive-ramp"
for d in adaptive/ramp/adaptive-ramp-*; do
	$KV report "$d" --steps | tee -a adaptive/ramp-steps.txt
done
stop_server $srv
log "PASS"
