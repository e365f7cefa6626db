package resultstest

import (
	"os"
	"path/filepath"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// RampLine is one threshold's cells of a Ramp run: a policy's when
// Policy is set (Threshold then results.AdaptiveThreshold for adaptive).
type RampLine struct {
	Threshold int
	Policy    string
	// Eager and Rendezvous are each protocol's latency (µs) and count at
	// the ramp's first step; at the second both counts double and the
	// latencies triple.
	EagerUs, RdvUs int64
	Eager, Rdv     int
}

// Ramp writes to dir (a run directory) the interval logs of a mixed run
// of one op (get) whose thresholds each ran an open-loop ramp of two 2 s
// steps, 500 then 1000 ops/s, in four 1 s intervals with an eager and a
// rendezvous cell per threshold, and returns the run.
func Ramp(dir string, lines ...RampLine) (*results.Run, error) {
	if err := os.MkdirAll(filepath.Join(dir, results.HlogDir), 0o755); err != nil {
		return nil, err
	}
	start := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	run := &results.Run{SchemaVersion: results.SchemaVersion, Start: start}
	for _, l := range lines {
		for _, p := range []struct {
			proto string
			n     int
			us    int64
		}{{"eager", l.Eager, l.EagerUs}, {"rendezvous", l.Rdv, l.RdvUs}} {
			c := results.Cell{Op: "get", ValueSize: 4096, Distribution: "weighted: {64B: 1, 64KiB: 1}", Threshold: l.Threshold,
				Policy: l.Policy, Protocol: p.proto, Store: results.KindRdmakv, Errors: map[string]int64{}, IntervalNs: int64(time.Second),
				Load: results.CellLoad{Mode: "open", Connections: 1, Depth: 1, RampRatesOps: []float64{500, 1000}, RampStepNs: int64(2 * time.Second)}}
			c.Hlog = results.HlogName(c)
			if err := results.WriteHlog(filepath.Join(dir, c.Hlog), "", start, rampIntervals(start, p.n, p.us)); err != nil {
				return nil, err
			}
			run.Cells = append(run.Cells, c)
		}
	}
	return run, nil
}

// rampIntervals are four 1 s intervals from start: n values of us µs in
// each of the first two, 2n of 3us in each of the last two.
func rampIntervals(start time.Time, n int, us int64) []*hdrhistogram.Histogram {
	var hs []*hdrhistogram.Histogram
	for i := range 4 {
		h := results.NewHistogram()
		k, lat := n, us
		if i >= 2 {
			k, lat = 2*n, 3*us
		}
		_ = h.RecordValues(lat*1000, int64(k))
		h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
		h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
		hs = append(hs, h)
	}
	return hs
}
