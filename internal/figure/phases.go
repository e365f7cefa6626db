package figure

import (
	"fmt"
	"image/color"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// Phases split a cell's latency into its parts (results.OpPhase, by
// results.PhaseNames). Report prints them in a view of their own (report
// --phases), not beside the latency columns; tune reads them from its
// own measurements.
var Phases = Figure{
	Name:  "phases",
	Unit:  NS,
	Has:   func(c results.Cell) bool { return len(c.Phases) > 0 },
	Merge: Merge{New: func() Merger { return phaseAcc{} }},
	Plot: Bars{
		Title: "where the time goes (p50 of each phase)", YLabel: "p50 of each phase",
		Parts: phaseP50s, Order: results.PhaseNames, Colors: phaseColors,
	},
}

// phaseColors gives each phase one colour in every figure: the Okabe-Ito
// set, with grey for queue (time spent before the operation was issued).
var phaseColors = map[string]color.Color{
	"queue":   color.Gray{Y: 0xBB},
	"client":  color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky
	"network": color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	"server":  color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // green
	"read":    color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	"release": color.RGBA{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	"write":   color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	"commit":  color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // purple
}

func phaseP50s(c results.Cell) map[string]float64 {
	out := map[string]float64{}
	for name, ph := range c.Phases {
		out[name] = float64(ph.P50)
	}
	return out
}

// phaseAcc adds the ranks' histograms of each phase: the merged phase's
// percentiles are the job's, exactly.
type phaseAcc map[string]*hdrhistogram.Histogram

func (a phaseAcc) Add(_ *results.Run, c results.Cell) error {
	for name, ph := range c.Phases {
		h, err := results.DecodeHistogram(ph.Histogram)
		if err != nil {
			return fmt.Errorf("%s phase %s: %w", c.Name(), name, err)
		}
		if a[name] == nil {
			a[name] = results.NewHistogram()
		}
		a[name].Merge(h)
	}
	return nil
}

func (a phaseAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	c.Phases = nil
	for name, h := range a {
		enc, err := results.EncodeHistogram(h)
		if err != nil {
			return nil, err
		}
		if c.Phases == nil {
			c.Phases = map[string]results.OpPhase{}
		}
		c.Phases[name] = results.OpPhase{Count: h.TotalCount(), P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90),
			P99: h.ValueAtQuantile(99), Max: h.Max(), Histogram: enc}
	}
	return nil, nil
}
