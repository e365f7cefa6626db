#!/bin/sh
# guest-bench.sh: the bench-rdma run inside the Soft-RoCE guest. perftest
# gives the raw verbs floor on rxe0; kvbench then measures the same shapes
# through rdmakv, each case a one-cell workload (workloads/CASE.yaml in the
# share, from test/rdma-vm/workloads). Every report lands in bench/ in the
# share, where benchtable reads it. Iteration counts are short: under
# emulation three rounds of three draws take about four minutes. kvserver
# and kvbench busy-poll, as perftest does (POLL=event here measures the
# event-driven path).
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
PORT=7471
POLL=busy
# The server spins only while requests arrive: after BUSY_IDLE with none it
# sleeps until the next. During a 1 MiB SET (tens of ms of one-sided WRITE
# here) it has nothing to poll for, and a spinning server on the second
# vCPU slowed that WRITE by about a fifth, while ib_write_bw's server polls
# nothing. 5 ms is longer than a 64 KiB READ, so the GET cases sleep only
# after their slowest operations: a wake-up costs 1-2 ms under emulation.
BUSY_IDLE=5ms
mkdir -p bench
rm -rf bench/*
# benchtable prints these: a slow clock source taxes the Go side only.
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >bench/clocksource.txt
# Every process gets the same address layout. TCG's TLB is direct-mapped by
# virtual page, so under randomisation each process draws its own set of
# conflicts: one build's eager GET p50 ran anywhere from 34 to 60 us from
# one client process to the next in a single boot, and 34 to 37 us without.
# perftest runs under the same setting.
echo 0 >/proc/sys/kernel/randomize_va_space
cat /proc/sys/kernel/randomize_va_space >bench/aslr.txt
# Pinning (the second argument, 1 by default; make bench-rdma
# RDMA_BENCH_PIN=0 turns it off): every server, perftest's and kvserver,
# runs on CPU 1 and every client on CPU 0. perftest is one thread per side
# and lands like that anyway (its figures did not move when pinned). A Go
# process has several threads, and unpinned the scheduler now and then
# parks one of them on the other side's CPU, where it preempts that side's
# spinner: eager GET p50 then ran 29-32 us in about a third of the runs,
# against 23-25 us otherwise, in one boot. Pinning gives every run the
# placement a dedicated RDMA host would give the two ends.
PIN=${2:-1}
case $PIN in
0) echo "off" >bench/pin.txt ;;
1)
	[ "$(nproc)" -ge 2 ] || die "pinning needs 2 CPUs in the guest, have $(nproc); run with RDMA_BENCH_PIN=0"
	PIN_SERVER="taskset 2"
	PIN_CLIENT="taskset 1"
	echo "servers on CPU 1, clients on CPU 0" >bench/pin.txt
	;;
*) die "pin must be 0 or 1, got '$PIN'" ;;
esac
SERVER_FLAGS="--poll $POLL --busy-idle $BUSY_IDLE"
echo "$SERVER_FLAGS" >bench/kvserver.txt

# ROUNDS is how many times the whole set runs, perftest and kvbench in
# turn, so a stretch of host noise hits both sides of a ratio alike;
# benchtable shows the median over the rounds of every figure. The first
# argument sets it (make bench-rdma RDMA_BENCH_ROUNDS=N).
ROUNDS=${1:-3}

# positive WHAT VALUE dies unless VALUE is a whole number of at least 1.
positive() {
	case $2 in
	'' | *[!0-9]*) die "$1 must be a positive number, got '$2'" ;;
	esac
	[ "$2" -ge 1 ] || die "$1 must be a positive number, got '$2'"
}
positive rounds "$ROUNDS"

# DRAWS (the third argument, 3 by default; make bench-rdma
# RDMA_BENCH_DRAWS=N) is how many times a round runs each compared case,
# perftest's baselines and then kvbench, a fresh process pair each time.
# Under emulation a process's speed is partly a draw: in one boot a third
# or more of the kvbench processes, and some perftest ones, ran 40-100%
# slower from start to end (docs/MEASUREMENTS.md). benchtable keeps each
# side's fastest draw per round, the code's cost rather than the draw, and
# also shows the ratio over every draw.
DRAWS=${3:-3}
positive draws "$DRAWS"
echo "$DRAWS" >bench/draws.txt

# perftest_case TAG NAME ARGS... is perftest_pair, run once more when the
# report holds inf or nan (perftest divides by a zero-length interval now
# and then under emulation). Each draw's report is appended to
# bench/NAME-TAG.txt.
perftest_case() {
	_tag=$1
	shift
	PT_TAG=$_tag.run perftest_pair "$@"
	if grep -qiE '(^|[[:space:]-])(inf|nan)([[:space:]]|$)' "bench/$1-$_tag.run.txt"; then
		log "$1 reported inf/nan; running it again"
		PT_TAG=$_tag.run perftest_pair "$@"
	fi
	cat "bench/$1-$_tag.run.txt" >>"bench/$1-$_tag.txt"
	rm -f "bench/$1-$_tag.run.txt" "bench/$1-$_tag.run.server.txt"
}

# kvbench_case NAME WORKLOAD runs kvbench's one-cell workload against the
# server; each round leaves its run directory under bench/kvbench-NAME.
kvbench_case() {
	# shellcheck disable=SC2086 # a PIN_* prefix is a command and its mask
	_dir=$($PIN_CLIENT timeout 180 ./kvbench run "workloads/$2.yaml" --server "$RDMAKV_ADDR:$PORT" \
		--transport verbs --poll "$POLL" -o "bench/kvbench-$1" --quiet) || die "kvbench $1"
	cat "$_dir/summary.txt"
}

# kvbench_with_server NAME WORKLOAD runs one kvbench case against a
# kvserver of its own, started for it and stopped after it: a busy-polling
# server left running would take a core from the perftest runs in between.
kvbench_with_server() {
	# shellcheck disable=SC2086 # SERVER_FLAGS is several flags
	$PIN_SERVER ./kvserver --transport verbs $SERVER_FLAGS --listen "$RDMAKV_ADDR:$PORT" &
	srv=$!
	wait_listen $PORT $srv
	kvbench_case "$@"
	stop_server $srv
	PORT=$((PORT + 1))
}

# drawn TAG CASE WORKLOAD PERFTEST ARGS... runs perftest's baseline and
# then kvbench's case DRAWS times. Each kvbench draw runs right after the
# perftest run it is compared with, so a stretch of host noise (seconds
# long under emulation) weighs on both sides of that round's ratio.
drawn() {
	_dtag=$1 _dcase=$2 _dwork=$3
	shift 3
	_draw=1
	while [ $_draw -le "$DRAWS" ]; do
		perftest_case "$_dtag" "$@"
		kvbench_with_server "$_dcase" "$_dwork"
		_draw=$((_draw + 1))
	done
}

# benchtable reports the median of the per-round ratios. The 2-byte
# perftest runs are for reference only: once a round.
_round=1
while [ $_round -le $ROUNDS ]; do
	log "round $_round of $ROUNDS: eager GET against ib_send_lat"
	perftest_case 2 ib_send_lat -s 2 -n 5000
	drawn 64 get-eager-64 eager-get-64 ib_send_lat -s 64 -n 5000
	log "round $_round of $ROUNDS: rendezvous GET against ib_read_lat"
	perftest_case 2 ib_read_lat -s 2 -n 5000
	drawn 65536 get-rdv-64k rdv-get-64k ib_read_lat -s 65536 -n 500
	log "round $_round of $ROUNDS: SET against ib_write_bw"
	drawn 1048576 set-1m set-1m ib_write_bw -s 1048576 -n 200
	_round=$((_round + 1))
done
log "PASS"
