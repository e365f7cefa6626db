#!/bin/sh
# guest-adaptive.sh: make adaptive-rdma inside the Soft-RoCE guest, the
# adaptive policy beside fixed thresholds over verbs: kvbench tune on the
# weighted mix of 64 B to 1 MiB and on ETC at 1, 4 and 16 connections
# (interleaved, repeated), tune on single sizes (what exploring costs
# where one protocol wins), a run of 8 KiB to 32 KiB gets, which eager
# wins under Soft-RoCE (how long the policy takes to settle there), and
# three runs of an open-loop ramp of the mix (report --steps). The
# workloads set their own phases. Everything lands in adaptive/ in the
# share, each part's text beginning with the build that made it.
# Arguments: SETTLE_MEASURE, and the parts to run (default all: mixed etc
# single settle ramp).
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
SETTLE_MEASURE=${1:-20s}
PARTS=${2:-mixed etc single settle ramp}
PORT=7471
rm -rf adaptive
mkdir -p adaptive
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
# build FILE: FILE starts with the build that writes it.
build() { ./kvbench version >"$1"; }
echo 0 >/proc/sys/kernel/randomize_va_space
[ "$(nproc)" -ge 2 ] || die "adaptive-rdma needs 2 CPUs in the guest, have $(nproc)"
# As sweep-rdma's server (guest-sweep.sh says why), with receives for 16
# connections of depth 8 (ETC).
SERVER_FLAGS="--poll busy --busy-idle 5ms --max-eager 2MiB --recv-depth 16 --max-recvs 288 --pool-size 512MiB"
echo "$SERVER_FLAGS" >adaptive/kvserver.txt
# shellcheck disable=SC2086 # SERVER_FLAGS is several flags
taskset 2 ./kvserver --transport verbs $SERVER_FLAGS --listen "$RDMAKV_ADDR:$PORT" &
srv=$!
wait_listen $PORT $srv

KV="taskset 1 ./kvbench"
TUNE="--server $RDMAKV_ADDR:$PORT --transport verbs --poll event --connections 1,4,16"
for w in mixed etc; do
	want $w || continue
	log "tune $w at 1, 4 and 16 connections, adaptive beside the thresholds"
	build adaptive/tune-$w.out
	# shellcheck disable=SC2086
	$KV tune workloads/adaptive-$w.yaml $TUNE -o adaptive/tune-$w >>adaptive/tune-$w.out || die "kvbench tune adaptive-$w"
	cat adaptive/tune-$w.out
done
if want single; then
	log "tune single sizes: what exploring costs where one protocol wins"
	build adaptive/tune-single.out
	$KV tune workloads/adaptive-single.yaml --server "$RDMAKV_ADDR:$PORT" --transport verbs --poll busy \
		-o adaptive/tune-single >>adaptive/tune-single.out || die "kvbench tune adaptive-single"
	cat adaptive/tune-single.out
fi
if want settle; then
	log "adaptive settling on eager for 8 KiB to 32 KiB gets ($SETTLE_MEASURE)"
	$KV run workloads/adaptive-settle.yaml --server "$RDMAKV_ADDR:$PORT" --transport verbs --poll busy \
		--duration "$SETTLE_MEASURE" -o adaptive/settle --quiet || die "kvbench run adaptive-settle"
	build adaptive/settle.txt
	$KV report adaptive/settle/latest | tee -a adaptive/settle.txt
fi
if want ramp; then
	log "an open-loop ramp of the weighted mix, three times"
	$KV run workloads/adaptive-ramp.yaml --server "$RDMAKV_ADDR:$PORT" --repeat 3 -o adaptive/ramp --quiet ||
		die "kvbench run adaptive-ramp"
	build adaptive/ramp-steps.txt
	for d in adaptive/ramp/adaptive-ramp-*; do
		$KV report "$d" --steps | tee -a adaptive/ramp-steps.txt
	done
fi
stop_server $srv
log "PASS"
