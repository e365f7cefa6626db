package cli

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/metricsrv/metricstest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// TestRunMetricsAdaptive: at the end of a run of adaptive cells, run
// --metrics counts each op's requests by size class and protocol as
// results.json's timelines do, summed over the cells, and gives each op's
// threshold as the last cell's phase ended.
func TestRunMetricsAdaptive(t *testing.T) {
	s := &scrapeAtEnd{t: t, stderr: &logbuf.Buffer{}}
	root := NewRoot()
	root.SetArgs([]string{"run", "testdata/run-adaptive.yaml", "-o", t.TempDir(), "-q", "--metrics", "127.0.0.1:0"})
	root.SetOut(s)
	root.SetErr(s.stderr)
	if err := root.ExecuteContext(hangGuard(t)); err != nil {
		t.Fatal(err)
	}
	r, err := results.Load(strings.TrimSpace(s.stdout.String()))
	if err != nil || s.fams == nil {
		t.Fatalf("%v; scraped %v", err, s.fams != nil)
	}
	want := map[string]float64{}
	ends := map[string][]int64{}
	for _, c := range figure.FirstOfOp(r.Cells, figure.Adaptive.Has) {
		ends[c.Op] = append(ends[c.Op], c.Adaptive.EndThreshold())
		for _, k := range c.Adaptive.Classes {
			labels := "op=" + c.Op + ",protocol=%s,size_class=" + strconv.FormatInt(k.Lower, 10)
			for p, n := range map[string][]uint64{"eager": k.Eager, "rendezvous": k.Rendezvous} {
				for _, x := range n {
					want[strings.Replace(labels, "%s", p, 1)] += float64(x)
				}
			}
		}
	}
	if len(ends["set"]) != 2 || len(ends["get"]) != 2 || len(want) == 0 {
		t.Fatalf("timelines of sets at %v and gets at %v; want two value sizes each", ends["set"], ends["get"])
	}
	for labels, n := range want {
		if got := metricstest.Value(t, s.fams, "kvbench_adaptive_requests_total", labels); got != n {
			t.Errorf("kvbench_adaptive_requests_total{%s} = %v, results.json has %v", labels, got, n)
		}
	}
	for op, th := range ends {
		if got := metricstest.Value(t, s.fams, "kvbench_adaptive_threshold_bytes", "op="+op); !slices.Contains(th, int64(got)) {
			t.Errorf("kvbench_adaptive_threshold_bytes{op=%s} = %v, none of the cells' ends %v", op, got, th)
		}
	}
}
