package tunebench

import (
	"context"
	"errors"
	"fmt"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

// measureWhole measures the workload as it is (its mix, its law of
// sizes, its preload) at r's threshold, or under the adaptive policy,
// and load, every op and protocol merged into one sample: the latencies
// of all its operations, its throughput, and its CPU per operation.
func (b *Measurer) measureWhole(ctx context.Context, r tune.Request) (tune.Sample, error) {
	cfg := b.Config
	cfg.Thresholds, cfg.Verify = []int{storeThreshold(r.Threshold)}, false
	withLoad(&cfg, r)
	rep, err := b.run(ctx, cfg)
	if err != nil {
		return tune.Sample{}, err
	}
	m, warnings, checks, err := merged(rep.Measurements)
	if err != nil {
		return tune.Sample{}, err
	}
	s, err := sample(m)
	s.BytesPerSec, s.Phases, s.Warnings, s.Checks = 0, nil, warnings, checks
	if secs := m.Duration.Seconds(); secs > 0 {
		s.BytesPerSec = float64(m.Bytes) / secs
	}
	return s, err
}

// merged is one measurement of the whole cell out of its ops' and
// protocols': their latencies, counts, errors and bytes together, over
// the phase's wall time and CPU, which they share; their warnings; and
// their checks merged as a merged cell's are (results.PartsChecks): no
// more trusted than its least trusted part, but for the precision of its
// quantiles, which rests on all their operations. A part's precision
// warnings give way to the whole's.
func merged(ms []bench.Measurement) (*bench.Measurement, []results.Warning, []results.Check, error) {
	var out *bench.Measurement
	var parts [][]results.Check
	warnings := slices.DeleteFunc(bench.PhaseWarnings(ms), results.IsPrecisionWarning)
	for i := range ms {
		m := &ms[i]
		if m.Count == 0 {
			continue
		}
		parts = append(parts, m.AllChecks())
		if out == nil {
			first := *m
			first.Hist, first.Phases = hdrhistogram.Import(m.Hist.Export()), bench.PhaseHists{}
			out = &first
			continue
		}
		out.Hist.Merge(m.Hist)
		out.Count, out.Bytes = out.Count+m.Count, out.Bytes+m.Bytes
		for k := range out.Errors {
			out.Errors[k] += m.Errors[k]
		}
	}
	if out == nil {
		return nil, nil, nil, errors.New("no operation completed")
	}
	if failed := failures(out); 2*failed > out.Count {
		return nil, nil, nil, fmt.Errorf("%d of %d operations failed", failed, out.Count)
	}
	c, err := out.Cell()
	if err != nil {
		return nil, nil, nil, err
	}
	checks := results.PartsChecks(c, parts...)
	own := slices.DeleteFunc(slices.Clone(checks), func(k results.Check) bool { return !results.IsPrecision(k.Name) })
	warnings = append(warnings, results.CheckWarnings(own)...)
	return out, warnings, checks, nil
}
