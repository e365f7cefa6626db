#!/usr/bin/env bash
# distortion.sh: does kvbench distort the baselines it drives? It measures
# the same redis-server with kvbench and with redis-benchmark, and the same
# memcached with kvbench and with memtier_benchmark, side by side: 64 B
# GETs of preloaded keys, closed loop, one request in flight per
# connection, at 1 connection (p50) and at 64 connections (ops/s). The
# reference clients run as many threads as kvbench has Ps on a 2-core host:
# one at 1 connection, two at 64 (redis-benchmark --threads 2, memtier
# -t 2 -c 32). Rounds alternate which client goes first, so that a host
# whose speed drifts slows both alike; the table gives the median of the
# rounds per side, their ratio kvbench/reference, and the rounds in which
# kvbench did worse. Goals: p50 ratio <= 1.1 at 1 connection, ops/s ratio
# >= 0.9 at 64.
#
# In the same rounds kvbench measures kvserver over TCP (rdmakv's eager
# GET, the same keys and values), set against kvbench's Redis figures of
# the round: kvserver's p50 at one connection within 1.1x of Redis's, its
# ops/s at 64 connections ahead.
#
# Usage: test/baselines/distortion.sh (or make distortion). Environment:
# ROUNDS (5), MEASURE (seconds per measurement, 5), KEYS (1000), GO (go);
# MEMTIER, a memtier_benchmark binary, else memtier_benchmark on PATH, else
# one built from tag MEMTIER_TAG (2.3.0) of MEMTIER_SRC (a git clone of
# memtier_benchmark) or of a shallow clone from GitHub, kept in
# ${XDG_CACHE_HOME:-~/.cache}/kvbench/memtier-MEMTIER_TAG (build
# dependencies: scripts/setup.sh memtier).
# Servers and clients share whatever cores the host has and are not pinned:
# on a 2-core host any pinning would put a client and a server on one core.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
MEASURE=${MEASURE:-5}
KEYS=${KEYS:-1000}
GO=${GO:-go}
MEMTIER_TAG=${MEMTIER_TAG:-2.3.0}
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

"$GO" build -o "$work/kvbench" ./cmd/kvbench
"$GO" build -o "$work/kvserver" ./cmd/kvserver

# memtier_benchmark is not packaged in Debian 12: build the pinned tag once
# into a cache directory unless one is given or on PATH.
if [ -n "${MEMTIER:-}" ]; then
	memtier=$MEMTIER
elif memtier=$(command -v memtier_benchmark); then
	:
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/kvbench/memtier-$MEMTIER_TAG
	memtier=$cache/memtier_benchmark
	if [ ! -x "$memtier" ]; then
		src=$cache/src
		rm -rf "$src" && mkdir -p "$src"
		if [ -n "${MEMTIER_SRC:-}" ]; then
			echo "distortion: building memtier_benchmark $MEMTIER_TAG from $MEMTIER_SRC in $cache" >&2
			git -C "$MEMTIER_SRC" archive "$MEMTIER_TAG" | tar -x -C "$src"
		else
			echo "distortion: building memtier_benchmark $MEMTIER_TAG from a clone of github.com/RedisLabs/memtier_benchmark in $cache" >&2
			git clone -q --depth 1 --branch "$MEMTIER_TAG" https://github.com/RedisLabs/memtier_benchmark "$src"
		fi
		(cd "$src" && autoreconf -if && ./configure --disable-tls && make -j"$(nproc)") >"$cache/build.log" 2>&1 || {
			echo "distortion: building memtier_benchmark failed (scripts/setup.sh memtier installs what it needs); $cache/build.log ends:" >&2
			tail -20 "$cache/build.log" >&2
			exit 1
		}
		cp "$src/memtier_benchmark" "$memtier"
	fi
fi
echo "distortion: $("$memtier" --version | head -1)" >&2

# freeport picks a port nothing listens on (racy, but the servers fail
# loudly if another process takes it first).
freeport() {
	local p
	while :; do
		p=$((30000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}
waitport() { # port log
	for _ in $(seq 200); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return
		sleep 0.05
	done
	echo "distortion: nothing listens on port $1; $2 says:" >&2
	cat "$2" >&2
	exit 1
}

rport=$(freeport)
redis-server --bind 127.0.0.1 --port "$rport" --save '' --appendonly no --loglevel warning >"$work/redis.log" 2>&1 &
pids+=($!)
mport=$(freeport)
# memcached refuses to run as root without -u; -t 2 gives it as many worker
# threads as a 2-core host has cores (its default, 4, only adds switching).
user=()
[ "$(id -u)" -eq 0 ] && user=(-u root)
memcached -l 127.0.0.1 -p "$mport" -U 0 -t 2 "${user[@]}" >"$work/memcached.log" 2>&1 &
pids+=($!)
kport=$(freeport)
"$work/kvserver" --listen "127.0.0.1:$kport" --transport tcp --log-level warn >"$work/kvserver.log" 2>&1 &
pids+=($!)
waitport "$rport" "$work/redis.log"
waitport "$mport" "$work/memcached.log"
waitport "$kport" "$work/kvserver.log"

# redis-benchmark GETs key:__rand_int__, key:000000000000 to key:<KEYS-1>
# with -r KEYS, and cannot preload them all itself (-t set -r draws them at
# random): store each with a 64 B value, so its GETs fetch what kvbench's do.
val=$(printf 'v%.0s' $(seq 64))
for ((i = 0; i < KEYS; i++)); do printf 'SET key:%012d %s\r\n' "$i" "$val"; done |
	redis-cli -p "$rport" --pipe >/dev/null
# memtier's keys are a prefix and a number: k00000000000 and 1000 to
# 1000+KEYS-1 are KEYS keys of 16 bytes, the size of kvbench's, which
# memtier stores with 64 B values (every key once, in order) before its
# GETs draw them at random; each GET run checks that none missed.
mtkeys=(--key-prefix=k00000000000 --key-minimum=1000 --key-maximum=$((1000 + KEYS - 1)))
"$memtier" -s 127.0.0.1 -p "$mport" --protocol=memcache_text -t 1 -c 1 "${mtkeys[@]}" \
	--ratio=1:0 --key-pattern=P:P --requests=allkeys -d 64 --hide-histogram >"$work/memtier-load.log" 2>&1 || {
	cat "$work/memtier-load.log" >&2
	exit 1
}

# kvbench preloads its own keys (k000000000000000 on).
for kind in redis memcached kvserver; do
	target="kind: $kind, server: \"127.0.0.1:$rport\""
	[ "$kind" = memcached ] && target="kind: memcached, server: \"127.0.0.1:$mport\""
	[ "$kind" = kvserver ] && target="kind: rdmakv, server: \"127.0.0.1:$kport\", transport: tcp"
	cat >"$work/$kind.yaml" <<-EOF
		name: distortion-$kind
		target: {$target}
		keys: {count: $KEYS, size: 16, distribution: uniform}
		values: {sizes: [64B]}
		mix: {get: 1}
		preload: true
		phases: {warmup: {duration: 1s}, measure: {duration: ${MEASURE}s}}
		load: {mode: closed, connections: 1, depth: 1}
	EOF
done

# Each measurement prints "p50_ns ops_per_s cpu_ns_per_op", the last the
# client process's user and system time per request: on a host whose
# cores are busy with others, the client with the most threads gets the
# most CPU, so equal CPU per request with unequal ops/s points there.
kvbench() { # kind connections
	local dir
	dir=$("$work/kvbench" run "$work/$1.yaml" --connections "$2" -q -o "$work/runs")
	"$work/kvbench" report "$dir" --format csv | awk -F, 'NR == 2 { print $9, $7, $18 }'
}
# redis-benchmark runs a count of requests, not a time: n[c] is sized from a
# short run to last about MEASURE seconds. Its --csv gives p50 in ms (to the
# µs); its CPU time is bash's time of the whole process.
declare -A n
redisbench() { # connections [requests]
	local threads=()
	[ "$1" -gt 1 ] && threads=(--threads 2)
	local req=${2:-${n[$1]}} TIMEFORMAT='%U %S' t
	{ t=$({ time redis-benchmark -p "$rport" -t get -c "$1" "${threads[@]}" -r "$KEYS" -n "$req" --csv >"$work/rb.csv"; } 2>&1); }
	tr -d '"' <"$work/rb.csv" | awk -F, -v t="$t" -v n="$req" '$1 == "GET" { split(t, c, " "); printf "%.0f %s %.0f\n", $5 * 1e6, $2, (c[1] + c[2]) * 1e9 / n }'
}
# memtier runs MEASURE seconds; its JSON gives the GETs' count, ops/s,
# misses and p50 (ms, to the µs it times with); its CPU time is bash's time
# of the whole process.
memtier() { # connections
	local conns=(-t 1 -c 1) TIMEFORMAT='%U %S' t
	[ "$1" -gt 1 ] && conns=(-t 2 -c $(($1 / 2)))
	rm -f "$work/mt.json"
	{ t=$({ time "$memtier" -s 127.0.0.1 -p "$mport" --protocol=memcache_text "${conns[@]}" "${mtkeys[@]}" \
		--ratio=0:1 --key-pattern=R:R --distinct-client-seed --test-time="$MEASURE" \
		--print-percentiles=50,99 --hide-histogram --json-out-file="$work/mt.json" >"$work/mt.log" 2>&1; } 2>&1); } || {
		cat "$work/mt.log" >&2
		exit 1
	}
	# The "Gets" object of "ALL STATS": its first Count, Ops/sec and
	# Misses/sec are the run's, its p50 the one under "Percentile Latencies".
	awk -v t="$t" '
		/"Gets": *\{/ { g = 1 } /"Waits": *\{/ { g = 0 }
		g && /"Percentile Latencies"/ { pl = 1 }
		function num(   v) { v = $0; sub(/.*: */, "", v); sub(/,.*/, "", v); return v + 0 }
		g && /"Count"/ && n == "" { n = num() }
		g && /"Ops\/sec"/ && ops == "" { ops = num() }
		g && /"Misses\/sec"/ && miss == "" { miss = num() }
		g && pl && /"p50.00"/ && p50 == "" { p50 = num() }
		END {
			if (n == "" || ops == "" || p50 == "") { print "distortion: no GET figures in memtier'"'"'s JSON" > "/dev/stderr"; exit 1 }
			if (miss != 0) { print "distortion: memtier'"'"'s GETs missed (" miss "/s): keys not preloaded" > "/dev/stderr"; exit 1 }
			split(t, c, " "); printf "%.0f %s %.0f\n", p50 * 1e6, ops, (c[1] + c[2]) * 1e9 / n
		}' "$work/mt.json"
}
for c in 1 64; do
	n[$c]=$(redisbench "$c" 20000 | awk -v s="$MEASURE" '{ printf "%.0f", $2 * s }')
done

# rows: case side round p50_ns ops_per_s cpu_ns_per_op
rows=$work/rows
: >"$rows"
for ((r = 1; r <= ROUNDS; r++)); do
	for c in 1 64; do
		for kind in redis memcached; do
			ref=redisbench
			[ "$kind" = memcached ] && ref=memtier
			sides=(kvbench "$ref")
			((r % 2 == 0)) && sides=("$ref" kvbench)
			for s in "${sides[@]}"; do
				if [ "$s" = kvbench ]; then out=$(kvbench "$kind" "$c"); else out=$("$s" "$c"); fi
				echo "$kind/c$c $s $r $out" | tee -a "$rows" >&2
				[ "$kind/$s" = redis/kvbench ] && redis_kvb=$out
			done
		done
		# kvserver against the Redis figures kvbench took this round.
		echo "kvserver/c$c kvbench $r $(kvbench kvserver "$c")" | tee -a "$rows" >&2
		echo "kvserver/c$c kvb-redis $r $redis_kvb" >>"$rows"
	done
done

# The table: per case, medians of the rounds, kvbench/reference, the
# rounds kvbench was worse (higher p50, fewer ops/s), and each client's
# CPU time per request.
echo
printf '%-13s %-10s %10s %10s %5s %5s %9s %9s %5s %5s %9s\n' case reference \
	'p50 kvb' 'p50 ref' ratio worse 'ops/s kvb' 'ops/s ref' ratio worse 'cpu/op'
awk '
function median(s,   a, k, i, j, t) {
	k = split(s, a, " ")
	for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{
	kv = $2 == "kvbench"
	if (!kv) ref[$1] = $2
	if (!($1 in seen)) { seen[$1] = 1; order[++ncase] = $1 }
	p[$1, kv] = p[$1, kv] " " $4; o[$1, kv] = o[$1, kv] " " $5; u[$1, kv] = u[$1, kv] " " $6
	rp[$1, $3, kv] = $4; ro[$1, $3, kv] = $5; rounds[$1] = $3 > rounds[$1] ? $3 : rounds[$1]
}
END {
	for (i = 1; i <= ncase; i++) {
		c = order[i]; wp = wo = 0
		for (r = 1; r <= rounds[c]; r++) { wp += rp[c, r, 1] > rp[c, r, 0]; wo += ro[c, r, 1] < ro[c, r, 0] }
		pk = median(p[c, 1]); pr = median(p[c, 0]); ok = median(o[c, 1]); orf = median(o[c, 0])
		printf "%-13s %-10s %7.1f us %7.1f us %5.2f %2d/%-2d %9.0f %9.0f %5.2f %2d/%-2d %4.1f/%.1f us\n", c, ref[c],
			pk / 1000, pr / 1000, pk / pr, wp, rounds[c], ok, orf, ok / orf, wo, rounds[c],
			median(u[c, 1]) / 1000, median(u[c, 0]) / 1000
	}
}' "$rows"
echo "ratio: kvbench/reference (kvserver: kvserver/Redis, both through kvbench); worse: rounds"
echo "kvbench (kvserver) had the higher p50 or the lower ops/s; cpu/op: client CPU time per request."
echo "goals: p50 ratio <= 1.10 at c1; ops/s ratio >= 0.90 at c64 (kvserver: > 1.00)"
