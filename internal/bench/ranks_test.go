package bench_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/workload"
)

// rankedRun runs ranks load generators side by side against one fake, as
// the processes of an MPI job would, and returns each rank's report and
// the keys each rank's connections touched.
func rankedRun(t *testing.T, ranks int, seed uint64, load workload.Load) ([]*bench.Report, []map[string]bool) {
	t.Helper()
	shared := &benchtest.Fake{}
	reps := make([]*bench.Report, ranks)
	fakes := make([]*benchtest.Fake, ranks)
	var wg sync.WaitGroup
	for r := range ranks {
		// Each rank records its own connections; all share one store.
		fakes[r] = &benchtest.Fake{Record: true}
		fakes[r].Share(shared)
		cfg := baseConfig(fakes[r])
		cfg.Seed, cfg.Load = seed, load
		cfg.Rank, cfg.Ranks = r, ranks
		cfg.Verify, cfg.FreshServer, cfg.Preload = true, true, true
		cfg.Measure = workload.Phase{Ops: 1200}
		wg.Go(func() { reps[r] = run(t, cfg) })
	}
	wg.Wait()
	keys := make([]map[string]bool, ranks)
	for r, f := range fakes {
		keys[r] = map[string]bool{}
		for _, c := range f.Conns() {
			for _, op := range c.Ops() {
				keys[r][op.Key] = true
			}
		}
	}
	return reps, keys
}

// Three ranks of one workload: together they do its operation count, no
// key is touched by two ranks (so verify stays exact, and finds nothing
// wrong while all three write to one store), and the same seed replays
// the same operations on every rank, in a closed and an open loop.
func TestRanksPartitionTheWork(t *testing.T) {
	for _, load := range []workload.Load{
		{Mode: "closed", Connections: 2, Depth: 2},
		{Mode: "open", Connections: 2, Depth: 1, Rate: 30000, Pacing: bench.PacingPrecise},
	} {
		t.Run(load.Mode, func(t *testing.T) {
			reps, keys := rankedRun(t, 3, 5, load)
			var total int64
			for r, rep := range reps {
				if rep.Verify.Failed() || rep.Verify.Checked == 0 {
					t.Errorf("rank %d: verify %+v", r, rep.Verify)
				}
				own := phaseOps(rep, 4096, 64)
				for _, m := range rep.Measurements {
					total += m.Count
					// Each rank reads its own CPU clock over its own operations.
					if m.CPU == nil || m.CPU.Ops != own {
						t.Errorf("rank %d %s: CPU %+v, want the rank's own %d operations", r, m.Op, m.CPU, own)
					}
				}
				for k := range keys[r] {
					for o := r + 1; o < len(keys); o++ {
						if keys[o][k] {
							t.Fatalf("key %s touched by ranks %d and %d", k, r, o)
						}
					}
				}
			}
			if total != 1200 {
				t.Errorf("the ranks did %d measured operations together, want 1200", total)
			}
			again, keys2 := rankedRun(t, 3, 5, load)
			for r := range reps {
				if len(keys2[r]) != len(keys[r]) || counts(again[r]) != counts(reps[r]) {
					t.Errorf("rank %d: the same seed gave different work: %d vs %d keys, %v vs %v",
						r, len(keys[r]), len(keys2[r]), counts(reps[r]), counts(again[r]))
				}
			}
		})
	}
}

// counts is the measured operations per (op, protocol), printed.
func counts(rep *bench.Report) string {
	c := map[string]int64{}
	for _, m := range rep.Measurements {
		c[m.Op.String()+"/"+m.Protocol.String()] += m.Count
	}
	return fmt.Sprint(c)
}

func TestRankValidate(t *testing.T) {
	cfg := baseConfig(&benchtest.Fake{})
	cfg.Rank, cfg.Ranks = 3, 3
	if err := cfg.Validate(); err == nil {
		t.Error("rank 3 of 3 accepted")
	}
}
