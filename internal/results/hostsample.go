package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HostSample is what Linux says of the whole machine at one moment: its
// 1-minute load average, its CPU time stolen by a hypervisor and in all
// (jiffies over every CPU, /proc/stat's first line), and each CPU's
// current frequency. A harness reads one before and one after a cell's
// measure phase (HostChecks). Fields it cannot read stay zero, and their
// checks are not made: many VMs have no cpufreq, other systems no /proc.
type HostSample struct {
	Load1       float64
	LoadOK      bool
	Steal, Busy uint64 // jiffies; Busy is every state's, idle included
	StatOK      bool
	// FreqKHz are the CPUs' scaling_cur_freq, in the order their
	// directories list; empty when the host exposes none.
	FreqKHz []int64
}

// ReadHostSample reads a HostSample under root: "/" on the host, a
// directory of fixture files (proc/loadavg, proc/stat,
// sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq) in tests.
func ReadHostSample(root string) HostSample {
	var s HostSample
	if b, err := os.ReadFile(filepath.Join(root, "proc/loadavg")); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			s.Load1, err = strconv.ParseFloat(f[0], 64)
			s.LoadOK = err == nil
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "proc/stat")); err == nil {
		s.Steal, s.Busy, s.StatOK = parseStatCPU(string(b))
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
// inside user and nice, so the total stops at steal.
func parseStatCPU(stat string) (steal, total uint64, ok bool) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += n
		if i == 7 {
			steal = n
		}
	}
	return steal, total, true
}
