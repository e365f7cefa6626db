package results

import (
	"fmt"
	"math"
)

// Bounds of the host checks (HostChecks).
const (
	// StealShareMax is the share of the host's CPU time a hypervisor may
	// steal over a cell. A VM on a quiet host loses well under 1%; at 5%
	// the vCPUs the run spins or waits on are away often enough that
	// every twentieth microsecond of a latency may be the neighbour's.
	StealShareMax = 0.05
	// FreqChangeMax is how far the CPUs' mean frequency may move over a
	// cell. Single cores' readings jitter by a few percent between
	// samples as they enter and leave idle states; a mean moved by more
	// than 10% is the governor or a thermal limit changing the clock
	// under the cell, so its early and late operations ran at different
	// speeds.
	FreqChangeMax = 0.10
)

// loadMargin is how far the 1-minute load average may exceed the CPUs the
// run itself keeps busy: a runnable kernel thread or shell is routine,
// so one CPU, or a quarter of a large machine's; beyond that another
// program competes with the run for CPUs.
func loadMargin(cpus int) float64 { return max(1, float64(cpus)/4) }

// HostChecks judge the host over a cell from samples taken before and
// after its measure phase: the load average against usedCPUs (the run's
// own CPU time over the phase's wall time) on cpus CPUs, the steal time,
// and the CPU frequency. A check whose readings are missing is not made:
// absence is no pass.
func HostChecks(before, after HostSample, usedCPUs float64, cpus int) []Check {
	var out []Check
	if after.LoadOK {
		bound := usedCPUs + loadMargin(cpus)
		out = append(out, Check{Name: CheckHost, Method: "load average", Statistic: after.Load1,
			Figure: fmt.Sprintf("1-minute load %.2f on %d CPUs, the run's own %.1f", after.Load1, cpus, usedCPUs),
			Pass:   after.Load1 <= bound})
	}
	if before.StatOK && after.StatOK && after.Busy > before.Busy && after.Steal >= before.Steal {
		share := float64(after.Steal-before.Steal) / float64(after.Busy-before.Busy)
		out = append(out, Check{Name: CheckHost, Method: "steal time", Statistic: share,
			Figure: fmt.Sprintf("%.1f%% of the host's CPU time stolen (bound %.0f%%)", 100*share, 100*StealShareMax),
			Pass:   share <= StealShareMax})
	}
	if f0, f1 := meanFreq(before.FreqKHz), meanFreq(after.FreqKHz); f0 > 0 && f1 > 0 && len(before.FreqKHz) == len(after.FreqKHz) {
		change := (f1 - f0) / f0
		out = append(out, Check{Name: CheckHost, Method: "cpu frequency", Statistic: change,
			Figure: fmt.Sprintf("mean CPU clock %.2f GHz before, %.2f GHz after (%+.0f%%)", f0/1e6, f1/1e6, 100*change),
			Pass:   math.Abs(change) <= FreqChangeMax})
	}
	return out
}

func meanFreq(khz []int64) float64 {
	if len(khz) == 0 {
		return 0
	}
	var sum float64
	for _, k := range khz {
		sum += float64(k)
	}
	return sum / float64(len(khz))
}

// Spinners counts the goroutines of a run that spin rather than sleep
// while they wait, from what results.json records of it (BusyPollCheck).
// Under busy polling (verbs) every waiting worker of the client drives
// its completion queue itself: connections × depth spinners; an
// embedded busy server adds its receive poller, which all connections
// share. A precisely paced open loop adds its dispatcher, which spins up
// to each intended start.
func Spinners(t Transport, l CellLoad) (client, server int) {
	if t.ClientPoll == "busy" {
		client = l.Connections * max(l.Depth, 1)
	}
	if l.Pacing == "precise" {
		client++
	}
	if t.Embedded && t.ServerPoll == "busy" {
		server = 1
	}
	return client, server
}

// BusyPollCheck fails a cell whose spinners, client's and embedded
// server's together, outnumber the host's CPUs (cpus: the CPUs this
// process may run on, Host.Cores): they then take turns on the CPUs, and
// a reply waits for its spinner to be scheduled, so the cell measures
// the scheduler's time slices rather than the store. ok is false when
// nothing in the run spins.
func BusyPollCheck(t Transport, l CellLoad, cpus int) (Check, bool) {
	client, server := Spinners(t, l)
	n := client + server
	if n == 0 || cpus <= 0 {
		return Check{}, false
	}
	return Check{Name: CheckHost, Method: "busy-poll oversubscribed", Statistic: float64(n) / float64(cpus),
		Figure: fmt.Sprintf("%d spinning (client %d, server %d) on %d CPUs", n, client, server, cpus),
		Pass:   n <= cpus}, true
}
