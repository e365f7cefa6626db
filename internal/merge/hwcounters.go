package merge

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// device is one RDMA device port on one client host.
type device struct {
	host, name string
	port       int
}

// hwAcc accumulates one cell's device counters (Cell.HWCounters) over the
// ranks. A device counts every connection on it, so the ranks on one host
// and device each read that device's whole traffic, over measure phases
// the barriers align: summing them would count it once per rank. Within
// one host and device the merge keeps each counter's largest reading, as
// it keeps the largest rank's reading of the one server's CPU time; the
// devices of different hosts count different traffic, and those add.
type hwAcc struct {
	// max is, per device that recorded counters, each counter's largest
	// reading among its ranks.
	max map[device]map[string]uint64
	// ran is every device a rank measured the cell on, counters or not.
	ran map[device]bool
}

func (a *hwAcc) add(r *results.Run, c results.Cell) {
	d := device{r.Host.Hostname, r.Transport.Device, r.Transport.Port}
	if a.ran == nil {
		a.ran, a.max = map[device]bool{}, map[device]map[string]uint64{}
	}
	a.ran[d] = true
	if c.HWCounters == nil {
		return
	}
	m := a.max[d]
	if m == nil {
		m = map[string]uint64{}
		a.max[d] = m
	}
	for name, n := range c.HWCounters {
		m[name] = max(m[name], n)
	}
}

// merged is the cell's counters summed over its devices; nil when no rank
// recorded any. partial says some device the cell ran on recorded none
// (no rank on that host could read it), so the sum leaves its traffic out.
func (a *hwAcc) merged() (counters map[string]uint64, partial bool) {
	if len(a.max) == 0 {
		return nil, false
	}
	out := map[string]uint64{}
	for _, m := range a.max {
		for name, n := range m {
			out[name] += n
		}
	}
	return out, len(a.max) < len(a.ran)
}

// hwWarnings say which cells' counters leave some host out.
func hwWarnings(partial []string) []string {
	if len(partial) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("cells %s: some client hosts recorded no RDMA device counters for them; the merged cells' hw_counters count the other hosts' devices only",
		strings.Join(partial, ", "))}
}
