# guest-lib.sh: helpers shared by the guest-side scripts. Sourced by a
# busybox sh inside the test guest (run.sh), in the share directory.

# log prints a progress line that stands out in the console stream.
log() { echo "== $*"; }

# die reports a failure and exits non-zero; run.sh passes the status on.
die() {
	echo "FAIL: $*" >&2
	exit 1
}

# wait_listen PORT PID waits until an rdma_cm ID listens on PORT, and
# wait_tcp PORT PID until a TCP socket does (the kernel's /proc/net/tcp,
# state 0A: Redis and memcached say nothing machine-readable when they are
# ready); each fails if PID dies first or 60 s pass.
wait_listen() { wait_for "rdma_cm port $1" "$2" cm_listening "$1"; }
wait_tcp() { wait_for "TCP port $1" "$2" tcp_listening "$1"; }
cm_listening() { /usr/bin/rdma res show cm_id 2>/dev/null | grep "state LISTEN" | grep -q ":$1 "; }
tcp_listening() { grep -q "^ *[0-9]*: [0-9A-F]*:$(printf '%04X' "$1") [0-9A-F]*:0000 0A " /proc/net/tcp; }

# wait_for WHAT PID COMMAND... runs COMMAND every 0.1 s until it succeeds.
wait_for() {
	_what=$1 _pid=$2
	shift 2
	_i=0
	until "$@"; do
		kill -0 "$_pid" 2>/dev/null || die "server (pid $_pid) exited before listening on $_what"
		_i=$((_i + 1))
		[ $_i -le 600 ] || die "nothing listening on $_what after 60s"
		sleep 0.1
	done
}

# stop_server PID stops a background server and fails unless it was still
# running and then exited cleanly (0, or killed by the SIGTERM we sent).
stop_server() {
	kill -0 "$1" 2>/dev/null || die "server (pid $1) died during the run"
	kill -TERM "$1"
	_rc=0
	wait "$1" || _rc=$?
	case $_rc in
	0 | 143) ;;
	*) die "server (pid $1) exited with status $_rc" ;;
	esac
}

# PIN_SERVER and PIN_CLIENT, set by guest-bench.sh, prefix the server and
# client side of every pair these helpers start (a taskset command); empty
# unless that script pins, whatever the environment held.
PIN_SERVER=
PIN_CLIENT=

# perftest_pair NAME ARGS... runs perftest NAME as server and client on
# RDMAKV_ADDR over rxe0, writing the client's report to bench/NAME-TAG.txt
# where TAG is $PT_TAG. The perftest server listens on a TCP port for its
# out-of-band exchange; a client that races the listen is refused at once,
# so it is retried a few times.
perftest_pair() {
	_name=$1
	shift
	# shellcheck disable=SC2086 # a PIN_* prefix is a command and its mask
	$PIN_SERVER timeout 120 "$_name" -d rxe0 -F "$@" >"bench/$_name-$PT_TAG.server.txt" 2>&1 &
	_srv=$!
	_n=0
	# shellcheck disable=SC2086
	until $PIN_CLIENT timeout 120 "$_name" -d rxe0 -F "$@" "$RDMAKV_ADDR" >"bench/$_name-$PT_TAG.txt" 2>&1; do
		_n=$((_n + 1))
		if [ $_n -ge 20 ] || ! kill -0 $_srv 2>/dev/null; then
			cat "bench/$_name-$PT_TAG.txt" "bench/$_name-$PT_TAG.server.txt" >&2
			die "$_name $* failed"
		fi
		sleep 0.5
	done
	wait $_srv || die "$_name server $* failed"
	cat "bench/$_name-$PT_TAG.txt"
}
