package results

import (
	"fmt"
	"math"
	"time"

	"github.com/kvbench/kvbench/internal/units"
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

// userHZ is the rate of the jiffies /proc/stat and /proc/self/stat count
// in: USER_HZ, 100 per second on every architecture Linux reports to
// user space in, whatever the kernel's own tick.
const userHZ = 100

// hostSpanMin is the shortest span the CPU accounting judges: both
// readings count in hundredths of a second, each CPU's rounded, so over
// a shorter span their rounding alone may look like a tenth of a CPU.
const hostSpanMin = 500 * time.Millisecond

// otherCPUsMax is how much CPU other programs may use during a cell, in
// CPUs: a quarter of one, or a tenth of a larger machine's. Kernel
// threads, a shell, a monitoring agent use a few hundredths; a quarter of
// a CPU is another program working, often enough to preempt the run's
// threads and hold its latencies up, and on a large machine a tenth of
// its CPUs is a competitor for its caches and memory bandwidth.
func otherCPUsMax(cpus int) float64 { return max(0.25, float64(cpus)/10) }

// HostChecks judge the host over a cell from samples taken before and
// after its measure phase on cpus CPUs: the CPU time other programs used
// (OtherCPUs), the steal time, and the CPU frequency. server is the
// CPU time an external server reported over the cell (0: none, or
// unknown), which is the run's too. A check whose readings are missing
// is not made: absence is no pass.
func HostChecks(before, after HostSample, server time.Duration, cpus int) []Check {
	var out []Check
	if other, span, ok := OtherCPUs(before, after, server); ok {
		bound := otherCPUsMax(cpus)
		out = append(out, Check{Name: CheckHost, Method: "other processes", Statistic: other,
			Figure: fmt.Sprintf("other processes used %.2f of %d CPUs during the cell's %s (bound %.2f)",
				other, cpus, units.Duration(float64(span)), bound),
			Pass: other <= bound})
	}
	if before.StatOK && after.StatOK && after.Total > before.Total && after.Steal >= before.Steal {
		share := float64(after.Steal-before.Steal) / float64(after.Total-before.Total)
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

// OtherCPUs is how many CPUs programs other than the run kept busy
// between two samples, on average over their span: the host's CPU time
// in work (steal included: a hypervisor's other guests compete as well)
// less this process's, whose threads are the client and an embedded
// server, and less server, an external server's. A load average would
// count the run's own runnable threads, which at a few connections
// outnumber small machines' CPUs, and lag a minute behind. A server
// on another machine is subtracted too when it reports: that can hide
// another program, never invent one. ok is false without both readings
// or over less than hostSpanMin.
func OtherCPUs(before, after HostSample, server time.Duration) (other float64, span time.Duration, ok bool) {
	span = time.Duration(after.AtNs - before.AtNs)
	if !before.StatOK || !after.StatOK || !before.OwnOK || !after.OwnOK || span < hostSpanMin ||
		after.Active < before.Active || after.Own < before.Own {
		return 0, span, false
	}
	busy := float64(after.Active-before.Active) / userHZ
	own := float64(after.Own-before.Own)/userHZ + server.Seconds()
	return max(0, busy-own) / span.Seconds(), span, true
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
