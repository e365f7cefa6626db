package doctor

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// checkGovernor reports the cpufreq governors of the CPUs this process
// may run on: anything but performance lets the clock drop between
// requests, which shows in latencies.
func checkGovernor(r *Report, env Env, cpus []int) {
	govs := map[string][]int{}
	for _, c := range cpus {
		g := env.read(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c))
		if g != "" {
			govs[g] = append(govs[g], c)
		}
	}
	if len(govs) == 0 {
		r.add(secLimits, "cpu governor", OK, "no cpufreq: the CPUs run at a fixed frequency (or a hypervisor decides)", "")
		return
	}
	var parts []string
	slow := false
	for g, cs := range govs {
		parts = append(parts, fmt.Sprintf("%s on CPUs %s", g, cpuList(cs)))
		slow = slow || g != "performance"
	}
	sort.Strings(parts)
	if !slow {
		r.add(secLimits, "cpu governor", OK, strings.Join(parts, "; "), "")
		return
	}
	r.add(secLimits, "cpu governor", Warn, strings.Join(parts, "; ")+": the clock may drop between requests, which shows in latencies",
		"`cpupower frequency-set -g performance` (as root) while measuring")
}

// checkNUMA compares the device's NUMA node with the CPUs this process
// may run on: work on another node's CPUs crosses the interconnect for
// every completion and every registered byte.
func checkNUMA(r *Report, env Env, d Device, cpus []int) {
	if d.NUMANode < 0 || len(cpus) == 0 {
		return
	}
	local := parseCPUList(env.read(fmt.Sprintf("/sys/devices/system/node/node%d/cpulist", d.NUMANode)))
	if len(local) == 0 {
		return
	}
	var on, off []int
	for _, c := range cpus {
		if slices.Contains(local, c) {
			on = append(on, c)
		} else {
			off = append(off, c)
		}
	}
	name := "device " + d.Name + " NUMA"
	pin := fmt.Sprintf("pin the server and clients to node %d: `numactl --cpunodebind=%d --membind=%d CMD`", d.NUMANode, d.NUMANode, d.NUMANode)
	switch {
	case len(off) == 0:
		r.add(secLimits, name, OK, fmt.Sprintf("node %d; this process runs only on its CPUs (%s)", d.NUMANode, cpuList(on)), "")
	case len(on) == 0:
		r.add(secLimits, name, Warn, fmt.Sprintf("node %d (CPUs %s), but this process may run only on CPUs %s of other nodes", d.NUMANode, cpuList(local), cpuList(off)), pin)
	default:
		r.add(secLimits, name, Warn, fmt.Sprintf("node %d (CPUs %s); this process may also run on CPUs %s of other nodes", d.NUMANode, cpuList(local), cpuList(off)), pin)
	}
}

// parseCPUList reads the kernel's CPU list format: "0-3,8,10-11".
func parseCPUList(s string) []int {
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// cpuList writes sorted CPUs in the kernel's format.
func cpuList(cpus []int) string {
	cpus = slices.Sorted(slices.Values(cpus))
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
