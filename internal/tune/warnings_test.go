package tune_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// A measurement's warnings are listed after the table, named by op, size,
// protocol and repeat, and kept in tune.json's samples.
func TestWarningsListed(t *testing.T) {
	lin := tune.NewLinear(1)
	warned := results.Warning{Kind: results.WarnBimodal, Message: "bimodal latency: 40% of operations near 50µs and 50% near 5ms, valley 20× lower between them"}
	n := 0
	m := tune.MeasurerFunc(func(ctx context.Context, r tune.Request) (tune.Sample, error) {
		s, err := lin.Measure(ctx, r)
		if n++; n == 3 { // repeat 1 of 1KiB, eager first
			s.Warnings = []results.Warning{warned}
		}
		return s, err
	})
	res, err := tune.Run(context.Background(), tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 1024}, Repeats: 2}, m)
	if err != nil {
		t.Fatal(err)
	}
	txt := table(t, res)
	if want := "\n  get 1KiB eager, repeat 1: " + warned.Message + "\n"; !strings.Contains(txt, want) {
		t.Errorf("table does not list %q:\n%s", want, txt)
	}
	if strings.Count(txt, "repeat ") != 1 {
		t.Errorf("more than the one warning listed:\n%s", txt)
	}
	var js bytes.Buffer
	if err := report.TuneJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, js.Bytes()); err != nil {
		t.Fatal(err)
	}
	if strings.Count(compact.String(), `"kind":"bimodal"`) != 1 {
		t.Errorf("tune.json does not keep the warning once: %s", js.String())
	}
}
