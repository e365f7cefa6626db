package results

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// CollectHost describes the machine this process runs on. Fields it cannot
// learn stay empty: host details are context for readers, never a reason to
// fail a run.
func CollectHost() Host {
	h := Host{Cores: runtime.NumCPU(), GoVer: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = "Linux " + strings.TrimSpace(string(b))
	} else {
		h.Kernel = runtime.GOOS
	}
	h.CPUModel = procField("/proc/cpuinfo", "model name")
	if mem := procField("/proc/meminfo", "MemTotal"); mem != "" {
		// "16318480 kB"
		f := strings.Fields(mem)
		if n, err := strconv.ParseUint(f[0], 10, 64); err == nil {
			if len(f) > 1 && f[1] == "kB" {
				n *= 1024
			}
			h.MemBytes = n
		}
	}
	return h
}

// procField returns the value of the first "key : value" line in file.
func procField(file, key string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
