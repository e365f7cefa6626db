package figure

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
)

// HWCounters (verbs) are what each hardware counter of the client's RDMA
// device grew by over the cell's measure phase (results.Cell.HWCounters).
// results judges them (RNRRetransmit); readers print none.
var HWCounters = Figure{
	Name:  "hw_counters",
	Unit:  "events",
	Has:   func(c results.Cell) bool { return c.HWCounters != nil },
	Merge: Merge{New: func() Merger { return &hwAcc{} }, Warn: hwWarnings},
}

// device is one RDMA device port on one client host.
type device struct {
	host, name string
	port       int
}

// hwAcc accumulates one cell's device counters over the ranks. A device
// counts every connection on it, so the ranks on one host and device each
// read that device's whole traffic, over measure phases the barriers
// align: summing them would count it once per rank. Within one host and
// device the merge keeps each counter's largest reading, as it keeps the
// largest rank's reading of the one server's CPU time; the devices of
// different hosts count different traffic, and those add.
type hwAcc struct {
	// max is, per device that recorded counters, each counter's largest
	// reading among its ranks.
	max map[device]map[string]uint64
	// ran is every device a rank measured the cell on, counters or not.
	ran map[device]bool
}

// hwPartial is the issue of a cell some device of which recorded no
// counters.
const hwPartial = "partial"

func (a *hwAcc) Add(r *results.Run, c results.Cell) error {
	d := device{r.Host.Hostname, r.Transport.Device, r.Transport.Port}
	if a.ran == nil {
		a.ran, a.max = map[device]bool{}, map[device]map[string]uint64{}
	}
	a.ran[d] = true
	if c.HWCounters == nil {
		return nil
	}
	m := a.max[d]
	if m == nil {
		m = map[string]uint64{}
		a.max[d] = m
	}
	for name, n := range c.HWCounters {
		m[name] = max(m[name], n)
	}
	return nil
}

// Put sets the cell's counters summed over its devices; none when no rank
// recorded any. It reports hwPartial when some device the cell ran on
// recorded none (no rank on that host could read it): the sum leaves its
// traffic out.
func (a *hwAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	c.HWCounters = nil
	if len(a.max) == 0 {
		return nil, nil
	}
	c.HWCounters = map[string]uint64{}
	for _, m := range a.max {
		for name, n := range m {
			c.HWCounters[name] += n
		}
	}
	if len(a.max) < len(a.ran) {
		return []string{hwPartial}, nil
	}
	return nil, nil
}

// hwWarnings say which cells' counters leave some host out.
func hwWarnings(issues map[string][]string) []string {
	cells := issues[hwPartial]
	if len(cells) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("cells %s: some client hosts recorded no RDMA device counters for them; the merged cells' hw_counters count the other hosts' devices only",
		strings.Join(cells, ", "))}
}
