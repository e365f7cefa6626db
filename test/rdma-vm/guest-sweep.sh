#!/bin/sh
# guest-sweep.sh: make sweep-rdma inside the Soft-RoCE guest. kvbench runs
# the threshold sweep (with phases), the mixed-size sweep and ETC, five
# tunes (p50 at one connection, a p50 map over 1, 4 and 16 connections,
# server CPU per op, capacity under a p99 goal, ETC as a whole workload
# beside what its single sizes predict) and the connections sweep over
# verbs against one kvserver; everything lands in sweep/ in the share,
# where the host draws the plots. Arguments: WARMUP MEASURE TUNE_MEASURE
# (durations), shortened from the workloads' own so the whole run fits in
# about an hour under emulation, and PARTS, some of run mixed etc tune
# tune-map tune-cpu tune-slo tune-etc conns (default all).
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
WARMUP=${1:-250ms}
MEASURE=${2:-1500ms}
TUNE_MEASURE=${3:-500ms}
PARTS=${4:-run mixed etc tune tune-map tune-cpu tune-slo tune-etc conns}
# want PART: PART is among those asked for.
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
PORT=7471
rm -rf sweep
mkdir -p sweep
# The same placement and address layout as bench-rdma (guest-bench.sh says
# why): the server on CPU 1, kvbench on CPU 0, no randomisation.
echo 0 >/proc/sys/kernel/randomize_va_space
[ "$(nproc)" -ge 2 ] || die "sweep-rdma needs 2 CPUs in the guest, have $(nproc)"
# max-eager covers eager at every size tune measures (1 MiB values, 16-byte
# keys). The server registers recv-depth buffers of max-eager bytes, and as
# many again per connection for its replies: 16 keeps that at 32 MiB a
# connection, so the 16-connection runs fit and each of tune's connections
# registers in well under a second under emulation. Its shared receives
# grow to 48 (96 MiB): two for each of 16 connections of depth 1, a
# request and a rendezvous release, and the reserve for handshakes, so
# credit never makes a client wait.
SERVER_FLAGS="--poll busy --busy-idle 5ms --max-eager 2MiB --recv-depth 16 --max-recvs 48 --pool-size 512MiB"
echo "$SERVER_FLAGS" >sweep/kvserver.txt
./kvbench version >sweep/build.txt
# shellcheck disable=SC2086 # SERVER_FLAGS is several flags
taskset 2 ./kvserver --transport verbs $SERVER_FLAGS --listen "$RDMAKV_ADDR:$PORT" &
srv=$!
wait_listen $PORT $srv

KV="taskset 1 ./kvbench"
TARGET="--server $RDMAKV_ADDR:$PORT --transport verbs --poll busy"
TUNE="$TARGET --warmup $WARMUP --duration $TUNE_MEASURE"
if want run; then
	log "threshold sweep (warmup $WARMUP, measure $MEASURE per cell)"
	$KV run workloads/threshold-sweep.yaml $TARGET --phases --warmup "$WARMUP" --duration "$MEASURE" -o sweep/run --quiet ||
		die "kvbench run threshold-sweep"
	$KV report sweep/run/latest --spread | tee sweep/spread.txt
fi
if want mixed; then
	log "mixed sizes: the weighted mix of 64 B to 1 MiB at thresholds 1 KiB to 1 MiB"
	$KV run workloads/mixed-sweep.yaml $TARGET --warmup "$WARMUP" --duration "$MEASURE" -o sweep/mixed --quiet ||
		die "kvbench run mixed-sweep"
	$KV report sweep/mixed/latest --by-size | tee sweep/mixed-by-size.txt
fi
# Every run of more than one request in flight (ETC's 4 x 8, the map,
# cpu and p99-goal tunes, the connections sweep) polls by events: busy
# polling would put that many spinners on kvbench's one CPU, where the
# run measures the scheduler and its cells fail the busy-poll check.
EVENT="--server $RDMAKV_ADDR:$PORT --transport verbs --poll event"
if want etc; then
	log "mixed sizes: Facebook's ETC at thresholds 1 KiB to 16 KiB"
	$KV run workloads/etc.yaml $EVENT --warmup "$WARMUP" --duration "$MEASURE" -o sweep/etc --quiet ||
		die "kvbench run etc"
	$KV report sweep/etc/latest --by-size | tee sweep/etc-by-size.txt
fi
if want tune; then
	log "tune, p50 at one connection (warmup $WARMUP, measure $TUNE_MEASURE per measurement)"
	$KV tune workloads/threshold-sweep.yaml $TUNE -o sweep/tune >sweep/tune.out || die "kvbench tune"
	cat sweep/tune.out
fi
# The map's and the cpu tune's measurements run until their p50 is
# known (workloads/tune-map.yaml says how long): at 4 and 16 connections
# TUNE_MEASURE leaves it at +-20-40%.
if want tune-map; then
	log "tune, a p50 map of get over 1, 4 and 16 connections"
	$KV tune workloads/tune-map.yaml $EVENT --adaptive=false --connections 1,4,16 -o sweep/tune-map >sweep/tune-map.out ||
		die "kvbench tune --connections 1,4,16"
	cat sweep/tune-map.out
fi
if want tune-cpu; then
	log "tune, the server's CPU per get at 4 connections"
	$KV tune workloads/tune-map.yaml $EVENT --adaptive=false --objective cpu --connections 4 -o sweep/tune-cpu >sweep/tune-cpu.out ||
		die "kvbench tune --objective cpu"
	cat sweep/tune-cpu.out
fi
if want tune-slo; then
	log "tune, capacity under a p99 goal at 4 connections"
	$KV tune workloads/tune-slo.yaml $EVENT --slo p99=5ms -o sweep/tune-slo >sweep/tune-slo.out ||
		die "kvbench tune --slo"
	cat sweep/tune-slo.out
fi
if want tune-etc; then
	log "tune ETC as a whole workload at its thresholds, and what its single sizes predict"
	$KV tune workloads/etc.yaml $EVENT --warmup "$WARMUP" --duration "$TUNE_MEASURE" --predict -o sweep/tune-etc >sweep/tune-etc.out || die "kvbench tune etc --predict"
	cat sweep/tune-etc.out
fi
if want conns; then
	for c in 1 4 16; do
		log "connections sweep: $c connections"
		$KV run workloads/connections-sweep.yaml $EVENT --connections $c --warmup "$WARMUP" --duration "$MEASURE" -o sweep/conns --quiet ||
			die "kvbench run connections-sweep --connections $c"
	done
fi
stop_server $srv
log "PASS"
