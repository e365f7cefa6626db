#!/bin/sh
# guest-flow.sh: credit-based flow control over verbs (make test-rdma).
# kvbench drives 64 B eager GETs at 4 connections x depth 16 and at 16 x
# 32 against kvservers with few receives (--recv-depth 16; the defaults at
# 16 x 32), with receives ample from the start (1024; 960 for 16
# connections, whose send queues 1024 would not leave room for), and with
# receives per connection (--receives per-connection). Every run must be
# verified and carry rxe's hardware counters with no RNR NAK, and the few
# and the per-connection server's ops/s must be at least 0.8x the ample
# one's and their p99 at most 2x, over two rounds each (six at 16 x 32,
# whose tails swing most).
# Under emulation one run's rate can differ from the next by several
# times when the host is busy, so each is measured beside an ample
# server at the same time, each pair (kvserver and kvbench) pinned to a
# CPU of its own, the CPUs swapped every other round: whatever else the
# host does falls on both alike, and the guest's scheduler cannot favour
# one. They begin measuring seconds apart (process starts under
# emulation), so flowcheck compares them over the window in which both
# measured, from their interval logs; the measure phases are long enough
# to leave one.
# The table shows ops/s, p99 and requests resent after a lost packet
# (completer_retry_err, which rxe under emulation can count when an
# acknowledgement comes late; the device's, so both runs' together).
# Soft-RoCE copies on the CPU both ways; the figures compare the runs with
# each other only.
set -e
. ./guest-lib.sh
: "${RDMAKV_ADDR:?not in the test guest}"
PORT=7473
mkdir -p flow
printf '%-8s %-9s %5s %10s %10s %8s\n' load kvserver round ops/s p99[us] resent >flow/table.txt
: >flow/ratios.txt

# flags_of LOAD ARM: the kvserver flags of an arm at a load.
flags_of() {
	case $1-$2 in
	4x16-tight) echo --recv-depth 16 ;;
	4x16-ample) echo --recv-depth 1024 ;;
	4x16-perconn) echo --receives per-connection --recv-depth 16 ;;
	16x32-tight) echo ;;
	16x32-ample) echo --recv-depth 960 --max-recvs 3840 ;;
	16x32-perconn) echo --receives per-connection ;;
	esac
}

# flow_round LOAD CONNS DEPTH DURATION ROUND ARM:CPU...: for each arm a
# kvserver, on ports from PORT up, and a kvbench run of CONNS x DEPTH
# measuring DURATION against it, both pinned to the arm's CPU, all at
# once.
flow_round() {
	_load=$1 _c=$2 _d=$3 _dur=$4 _round=$5
	shift 5
	ARMS= _port=$PORT _srvs= _runs=
	for _ac in "$@"; do
		_arm=${_ac%:*} _cpu=${_ac#*:}
		ARMS="$ARMS $_arm"
		# shellcheck disable=SC2046 # the arm's flags, split
		taskset -c "$_cpu" ./kvserver --transport verbs --listen "$RDMAKV_ADDR:$_port" --poll event $(flags_of "$_load" "$_arm") \
			>"flow/$_load-$_arm-$_round.server.log" 2>&1 &
		_srv=$!
		wait_listen $_port $_srv
		_srvs="$_srvs $_srv"
		_port=$((_port + 1))
	done
	_port=$PORT
	for _ac in "$@"; do
		_arm=${_ac%:*} _cpu=${_ac#*:}
		taskset -c "$_cpu" ./kvbench run workloads/flow.yaml --server "$RDMAKV_ADDR:$_port" --connections "$_c" --depth "$_d" \
			--duration "$_dur" -o "flow/$_load-$_arm-$_round" --quiet >/dev/null 2>"flow/$_load-$_arm-$_round.err" &
		_runs="$_runs $!"
		_port=$((_port + 1))
	done
	# shellcheck disable=SC2086 # the runs' pids, in the arms' order
	set -- $_runs
	for _arm in $ARMS; do
		wait "$1" || {
			# shellcheck disable=SC2086
			kill $_srvs 2>/dev/null
			die "kvbench run $_load-$_arm-$_round: $(cat "flow/$_load-$_arm-$_round.err")"
		}
		shift
	done
	for _srv in $_srvs; do
		stop_server "$_srv"
	done
	for _arm in $ARMS; do
		flow_check "$_load" "$_arm" "$_round"
	done
}

# flow_check LOAD ARM ROUND: the run was verified, no operation failed,
# and it carries rxe's counters with no RNR NAK; its ops/s and p99 go to
# the table.
flow_check() {
	_tag=$1-$2-$3
	_res=flow/$_tag/latest/results.json
	for _p in '"mismatches": 0' '"hw_counters"' '"send_rnr_err"'; do
		grep -qF "$_p" "$_res" || die "$_res lacks $_p"
	done
	for _k in send_rnr_err rcvd_rnr_err retry_rnr_exceeded_err; do
		! grep -qE "\"$_k\": [1-9]" "$_res" || die "$_tag: RNR NAKs: $(grep -oE "\"$_k\": [0-9]+" "$_res" | head -1)"
	done
	# The table's rows start with their threshold; column 7 is their errors.
	_failed=$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ && $7 != 0' "flow/$_tag/latest/summary.txt")
	[ -z "$_failed" ] || die "$_tag: operations failed: $_failed"
	_re=$(grep -oE '"completer_retry_err": [0-9]+' "$_res" | head -1 | cut -d' ' -f2)
	_line=$(grep ' get ' "flow/$_tag/latest/summary.txt" | head -1)
	# shellcheck disable=SC2086 # split the summary row into its columns
	set -- "$1" "$2" "$3" $_line
	printf '%-8s %-9s %5s %10s %10s %8s\n' "$1" "$2" "$3" "${17}" "${14}" "$_re" >>flow/table.txt
}

# check_ratios LOAD ARM ROUND...: ARM's ops/s at least 0.8x and p99 at
# most 2x the ample arm's in the windows where both measured, over the
# rounds.
check_ratios() {
	_l=$1 _a=$2
	shift 2
	_rounds=
	for _r in "$@"; do
		_rounds="$_rounds flow/$_l-ample-$_r/latest,flow/$_l-$_a-$_r/latest"
	done
	# shellcheck disable=SC2086 # one argument per round
	./flowcheck -min-ops 0.8 -max-p99 2 $_rounds >>flow/ratios.txt 2>&1 || {
		cat flow/table.txt flow/ratios.txt
		die "$_l: the server with $_a receives fell behind the ample one"
	}
}

# flow_load LOAD CONNS DEPTH DURATION PAIRS: each arm beside the ample one,
# on either CPU in turn, PAIRS times each way.
flow_load() {
	_n=0 _pairs=0 _tight= _perconn=
	while [ "$_pairs" -lt "$5" ]; do
		_pairs=$((_pairs + 1))
		for _which in tight perconn; do
			flow_round "$1" "$2" "$3" "$4" $((_n + 1)) ample:0 $_which:1
			flow_round "$1" "$2" "$3" "$4" $((_n + 2)) $_which:0 ample:1
			eval "_$_which=\"\$_$_which $((_n + 1)) $((_n + 2))\""
			_n=$((_n + 2))
		done
	done
	# shellcheck disable=SC2086 # the arm's rounds
	check_ratios "$1" tight $_tight
	# shellcheck disable=SC2086
	check_ratios "$1" perconn $_perconn
}

log "flow control: 4 x 16 and 16 x 32, few and per-connection receives each beside ample ones"
flow_load 4x16 4 16 15s 1
flow_load 16x32 16 32 12s 3
cat flow/table.txt flow/ratios.txt
