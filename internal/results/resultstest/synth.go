// Package resultstest builds synthetic kvbench runs, with real
// HdrHistograms and interval logs, from a simple latency model. The tests
// of the packages that read runs use it to get runs whose answers are
// known.
package resultstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// Model is latency = Base + PerByte*size for each protocol, with
// multiplicative log-normal noise of spread Sigma.
type Model struct {
	EagerBase, EagerPerByte float64 // ns, ns/byte
	RdvBase, RdvPerByte     float64
	Sigma                   float64
}

// Default crosses over near 4KiB: eager 2µs + 1ns/B, rendezvous 6µs + 0.02ns/B.
var Default = Model{EagerBase: 2000, EagerPerByte: 1, RdvBase: 6000, RdvPerByte: 0.02, Sigma: 0.1}

// Latency is the model's noiseless latency in ns.
func (m Model) Latency(size int, rendezvous bool) float64 {
	if rendezvous {
		return m.RdvBase + m.RdvPerByte*float64(size)
	}
	return m.EagerBase + m.EagerPerByte*float64(size)
}

// Spec describes the run to build.
type Spec struct {
	Ops        []string
	Sizes      []int
	Thresholds []int
	// Samples per cell, spread evenly over Intervals one-second intervals.
	Samples   int
	Intervals int
	Seed      uint64
	Model     Model
	// Scale multiplies every latency of the given op (1 when absent), to
	// build a regressed copy of a run.
	Scale map[string]float64
	// Kind is the target kind (rdmakv when empty), every cell's store. A
	// baseline kind (redis, memcached) has one cell per op and size,
	// threshold 0 and protocol eager, whatever Thresholds says; its
	// latency follows the eager model, as a store that sends every value
	// inline.
	Kind          string
	ServerVersion string
	// Start is when the first interval begins (a fixed day when zero).
	Start time.Time
}

// cellShape is the threshold, protocol and whether rendezvous of the cell
// Build makes for size at threshold t.
func (s Spec) cellShape(size, t int) (threshold int, proto string, rdv bool) {
	if results.BaselineStore(s.Kind) {
		return 0, "eager", false
	}
	if size >= t {
		return t, "rendezvous", true
	}
	return t, "eager", false
}

// thresholds are the thresholds Build loops over: one for a baseline.
func (s Spec) thresholds() []int {
	if results.BaselineStore(s.Kind) {
		return []int{0}
	}
	return s.Thresholds
}

// Hist draws n latencies around mean into a histogram with the shared
// geometry.
func Hist(r *rand.Rand, n int, mean, sigma float64) *hdrhistogram.Histogram {
	h := results.NewHistogram()
	for range n {
		v := mean * math.Exp(sigma*r.NormFloat64())
		_ = h.RecordValue(max(1, int64(v)))
	}
	return h
}

// Build writes the run's interval logs under dir (when dir is not empty)
// and returns the run.
func Build(dir string, s Spec) (*results.Run, error) {
	if s.Intervals <= 0 {
		s.Intervals = 1
	}
	r := rand.New(rand.NewPCG(s.Seed, 1))
	start := s.Start
	if start.IsZero() {
		start = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	}
	run := &results.Run{
		SchemaVersion: results.SchemaVersion,
		Workload:      map[string]any{"name": "synthetic"},
		Seed:          s.Seed, Version: "test", Start: start,
		End:       start.Add(time.Duration(s.Intervals) * time.Second),
		EndReason: results.EndCompleted,
		Transport: results.Transport{Name: "tcp", Server: "127.0.0.1:0", Embedded: true},
	}
	store := results.KindRdmakv
	if s.Kind != "" {
		run.Target = &results.Target{Kind: s.Kind, ServerVersion: s.ServerVersion}
		store = s.Kind
	}
	for _, op := range s.Ops {
		scale := 1.0
		if v, ok := s.Scale[op]; ok {
			scale = v
		}
		for _, t := range s.thresholds() {
			for _, size := range s.Sizes {
				th, proto, rdv := s.cellShape(size, t)
				mean := s.Model.Latency(size, rdv) * scale
				var intervals []*hdrhistogram.Histogram
				merged := results.NewHistogram()
				for i := range s.Intervals {
					h := Hist(r, s.Samples/s.Intervals, mean, s.Model.Sigma)
					h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
					h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
					merged.Merge(h)
					intervals = append(intervals, h)
				}
				enc, err := results.EncodeHistogram(merged)
				if err != nil {
					return nil, err
				}
				// Throughput follows the model as for one closed-loop
				// connection of depth 1; the interval logs keep their own
				// counts per second.
				c := results.Cell{
					Op: op, ValueSize: size, Threshold: th, Protocol: proto, Store: store,
					Count: merged.TotalCount(), Errors: map[string]int64{},
					DurationNs:    int64(float64(merged.TotalCount()) * mean),
					ThroughputOps: 1e9 / mean,
					Latency:       results.Summarize(merged), Histogram: enc,
					Load: results.CellLoad{Mode: "closed", Connections: 1, Depth: 1},
				}
				c.ThroughputBytes = c.ThroughputOps * float64(size)
				c.Hlog = results.HlogName(c)
				if dir != "" {
					file := filepath.Join(dir, filepath.FromSlash(c.Hlog))
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						return nil, err
					}
					if err := results.WriteHlog(file, fmt.Sprintf("synthetic %s", c.Hlog), start, intervals); err != nil {
						return nil, err
					}
				}
				run.Cells = append(run.Cells, c)
			}
		}
	}
	if dir != "" {
		if err := run.Save(dir); err != nil {
			return nil, err
		}
	}
	return run, nil
}
