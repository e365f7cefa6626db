#!/bin/sh
# guest-baselines.sh: make baselines-rdma inside the Soft-RoCE guest.
# kvbench runs workloads/baselines.yaml against four stores served from
# this one boot: kvserver over verbs, kvserver over tcp, Redis and
# memcached. Every run lands in baselines/STORE/ in the share, where the
# host draws the overlay and checks the repeats.
# Argument: REPEATS, the rounds of all four stores (default 3).
set -euo pipefail
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
REPEATS=${1:-3}
OUT=baselines
rm -rf "$OUT"
mkdir -p "$OUT"
# The same placement and address layout as bench-rdma (guest-bench.sh says
# why), for every store alike: each server on CPU 1, kvbench on CPU 0, no
# address randomisation.
echo 0 >/proc/sys/kernel/randomize_va_space
[ "$(nproc)" -ge 2 ] || die "baselines-rdma needs 2 CPUs in the guest, have $(nproc)"
./kvbench version >"$OUT/build.txt"

# kvserver takes one transport, so tcp gets a server of its own. The verbs
# server naps after 5 ms without a request (bench-rdma's setting), so it
# spins only during its own runs and leaves CPU 1 to the others'.
VERBS_FLAGS="--poll busy --busy-idle 5ms"
{
	echo "kvserver --transport verbs $VERBS_FLAGS"
	echo "kvserver --transport tcp"
	./redis-server --version
	./memcached -V
} >"$OUT/servers.txt"
# shellcheck disable=SC2086 # VERBS_FLAGS is several flags
taskset 2 ./kvserver --transport verbs $VERBS_FLAGS --listen "$RDMAKV_ADDR:7471" >"$OUT/kvserver-verbs.log" 2>&1 &
kv_verbs=$!
taskset 2 ./kvserver --transport tcp --listen "$RDMAKV_ADDR:7472" >"$OUT/kvserver-tcp.log" 2>&1 &
kv_tcp=$!
# Nothing persists: a snapshot or an append-only file would put disk
# writes (over 9p) inside Redis's sets.
taskset 2 ./redis-server --bind "$RDMAKV_ADDR" --port 6379 --save '' --appendonly no \
	--protected-mode no >"$OUT/redis.log" 2>&1 &
redis=$!
# -I 2m: items above the default 1 MiB limit, as the sweeps' values need;
# -u root: memcached refuses to run as root without it.
taskset 2 ./memcached -l "$RDMAKV_ADDR" -p 11211 -I 2m -u root >"$OUT/memcached.log" 2>&1 &
memcached=$!
wait_listen 7471 $kv_verbs
wait_tcp 7472 $kv_tcp
wait_tcp 6379 $redis
wait_tcp 11211 $memcached

# run STORE FLAGS...: one kvbench run of the workload into baselines/STORE.
run() {
	_store=$1
	shift
	log "round $r of $REPEATS: $_store"
	taskset 1 ./kvbench run workloads/baselines.yaml "$@" -o "$OUT/$_store" --quiet 2>>"$OUT/$_store.err" ||
		die "kvbench run against $_store: $(cat "$OUT/$_store.err")"
}
# Stores interleaved round by round, so a slow stretch of the host slows
# one round of each store rather than all rounds of one.
r=1
while [ $r -le "$REPEATS" ]; do
	run verbs --server "$RDMAKV_ADDR:7471" --transport verbs --poll busy
	run tcp --server "$RDMAKV_ADDR:7472" --transport tcp
	run redis --kind redis --server "$RDMAKV_ADDR:6379"
	run memcached --kind memcached --server "$RDMAKV_ADDR:11211"
	r=$((r + 1))
done
for pid in $kv_verbs $kv_tcp $redis $memcached; do
	stop_server "$pid"
done
log "PASS"
