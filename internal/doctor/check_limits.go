package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

const secLimits = "limits"

// unlimited is RLIM_INFINITY.
const unlimited = ^uint64(0)

func checkLimits(r *Report, env Env, devs []Device) {
	checkMemlock(r, env, defaultFootprint())
	checkNofile(r, env)
	checkClock(r, env)
	cpus, err := env.AllowedCPUs()
	if err != nil {
		r.add(secLimits, "cpus", Warn, "cannot read the CPUs this process may use: "+err.Error(), "")
	}
	checkGovernor(r, env, cpus)
	for _, d := range devs {
		checkNUMA(r, env, d, cpus)
	}
}

// checkMemlock compares RLIMIT_MEMLOCK, which bounds what a process may
// register unless it has CAP_IPC_LOCK, with what the defaults register.
func checkMemlock(r *Report, env Env, f footprint) {
	need := f.oneProcess()
	what := fmt.Sprintf("a kvserver at the defaults registers up to %s (pool %s, receive buffers grown to their most %s) and %s a connection; a client %s and up to %s of staging: %s in one process (kvbench run's embedded server)",
		units.Bytes(f.Pool+f.ServerRecv), units.Bytes(f.Pool), units.Bytes(f.ServerRecv), units.Bytes(f.ServerRing),
		units.Bytes(f.Client), units.Bytes(f.Staging), units.Bytes(need))
	cur, _, err := env.Rlimit(unix.RLIMIT_MEMLOCK)
	switch {
	case err != nil:
		r.add(secLimits, "locked memory", Warn, "cannot read RLIMIT_MEMLOCK: "+err.Error(), "")
	case cur == unlimited:
		r.add(secLimits, "locked memory", OK, "unlimited; "+what, "")
	case hasIPCLock(env):
		r.add(secLimits, "locked memory", OK, fmt.Sprintf("limit %s, but this process has CAP_IPC_LOCK, which lifts it; %s", units.Bytes(int64(cur)), what), "")
	case int64(cur) < need:
		r.add(secLimits, "locked memory", Fail,
			fmt.Sprintf("limit %s, below the %s needed: %s", units.Bytes(int64(cur)), units.Bytes(need), what),
			fmt.Sprintf("raise it to at least %s: `ulimit -l unlimited` (as root, or `* - memlock unlimited` in /etc/security/limits.conf; LimitMEMLOCK=infinity for a systemd service), or shrink --pool-size", units.Bytes(need)))
	default:
		r.add(secLimits, "locked memory", OK, fmt.Sprintf("limit %s; %s", units.Bytes(int64(cur)), what), "")
	}
}

// hasIPCLock: the effective capabilities (/proc/self/status CapEff)
// include CAP_IPC_LOCK (bit 14).
func hasIPCLock(env Env) bool {
	for l := range strings.SplitSeq(env.read("/proc/self/status"), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<14) != 0
		}
	}
	return false
}

// nofileSpare is descriptors a server needs besides one a connection,
// served or still in its handshake.
const nofileSpare = 64

// checkNofile compares the hard open-files limit (Go raises the soft one
// to it at start) with what a server at --max-conns and --max-handshakes
// needs.
func checkNofile(r *Report, env Env) {
	_, hard, err := env.Rlimit(unix.RLIMIT_NOFILE)
	need := uint64(rdmakv.DefaultMaxConns + rdmakv.DefaultMaxHandshakes + nofileSpare)
	switch {
	case err != nil:
		r.add(secLimits, "open files", Warn, "cannot read RLIMIT_NOFILE: "+err.Error(), "")
	case hard < need:
		r.add(secLimits, "open files", Warn,
			fmt.Sprintf("hard limit %d: a kvserver at --max-conns %d and --max-handshakes %d needs %d or more",
				hard, rdmakv.DefaultMaxConns, rdmakv.DefaultMaxHandshakes, need),
			fmt.Sprintf("raise it (`ulimit -Hn %d` as root, nofile in /etc/security/limits.conf, LimitNOFILE for systemd) or lower --max-conns", need))
	default:
		r.add(secLimits, "open files", OK, fmt.Sprintf("hard limit %d, enough for --max-conns %d and --max-handshakes %d", hard, rdmakv.DefaultMaxConns, rdmakv.DefaultMaxHandshakes), "")
	}
}

// fastClocks are clock sources read in user space without a system call.
var fastClocks = map[string]bool{"tsc": true, "arch_sys_counter": true, "kvm-clock": true, "hyperv_clocksource_tsc_page": true}

func checkClock(r *Report, env Env) {
	c := env.read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	switch {
	case c == "":
		r.add(secLimits, "clock source", Warn, "unknown (no /sys/devices/system/clocksource)", "")
	case fastClocks[c]:
		r.add(secLimits, "clock source", OK, c, "")
	default:
		r.add(secLimits, "clock source", Warn,
			c+": each time stamp is a system call, which adds to every latency measured",
			"look for why the TSC was not chosen (`dmesg | grep -i clocksource`) and, once it is stable, `echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource`")
	}
}
