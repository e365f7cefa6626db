package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HostSample is what Linux says of the whole machine and of this process
// at one moment: the CPU time of every CPU in all (jiffies, /proc/stat's
// first line), in work, and stolen by a hypervisor; this process's own
// CPU time (/proc/self/stat); and each CPU's current frequency. A
// harness reads one before and one after a cell's measure phase
// (HostChecks). Fields it cannot read stay zero, and their checks are not
// made: many VMs have no cpufreq, other systems no /proc.
type HostSample struct {
	// AtNs is when the sample was taken, on the harness's monotonic
	// clock; ReadHostSample leaves it to its caller.
	AtNs int64
	// Total is every state's jiffies, idle included; Active those spent
	// working for processes: user, nice, system and steal. Interrupt
	// and softirq time is left out: it serves the traffic the host
	// carries, the run's own above all (rxe moves every RDMA packet in
	// softirq, the kernel's TCP receives there), and no process owns it,
	// so it would count as another program's.
	Total, Active, Steal uint64
	StatOK               bool
	// Own is this process's user and system time, every thread's, in
	// the same jiffies.
	Own   uint64
	OwnOK bool
	// FreqKHz are the CPUs' scaling_cur_freq, in the order their
	// directories list; empty when the host exposes none.
	FreqKHz []int64
}

// ReadHostSample reads a HostSample under root: "/" on the host, a
// directory of fixture files (proc/stat, proc/self/stat,
// sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq) in tests.
func ReadHostSample(root string) HostSample {
	var s HostSample
	if b, err := os.ReadFile(filepath.Join(root, "proc/stat")); err == nil {
		s.Total, s.Active, s.Steal, s.StatOK = parseStatCPU(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(root, "proc/self/stat")); err == nil {
		s.Own, s.OwnOK = parseSelfStat(string(b))
	}
	files, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if k, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			s.FreqKHz = append(s.FreqKHz, k)
		}
	}
	return s
}

// parseStatCPU reads /proc/stat's aggregate "cpu" line: user nice system
// idle iowait irq softirq steal guest guest_nice. Guest time is already
// inside user and nice, so the total stops at steal; idle and iowait are
// the states in which a CPU does no work, irq and softirq those in which
// it works for no process (HostSample.Active).
func parseStatCPU(stat string) (total, active, steal uint64, ok bool) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, 0, false
	}
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		total += n
		if i < 3 || i == 7 {
			active += n
		}
		if i == 7 {
			steal = n
		}
	}
	return total, active, steal, true
}

// parseSelfStat reads utime and stime, fields 14 and 15 of
// /proc/self/stat. Fields are counted after the command's closing
// parenthesis, since the command (field 2) may hold spaces.
func parseSelfStat(stat string) (ticks uint64, ok bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // from field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	for _, v := range f[11:13] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return ticks, true
}
