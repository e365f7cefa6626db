package merge

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
)

// onHosts places rank i on hosts[i]'s rxe0 and gives each of its cells
// counters[i] (nil: none recorded).
func onHosts(hosts []string, counters []map[string]uint64) func(int, *results.Run) {
	return func(i int, r *results.Run) {
		r.Host.Hostname = hosts[i]
		r.Transport.Name, r.Transport.Device, r.Transport.Port = "verbs", "rxe0", 1
		for k := range r.Cells {
			r.Cells[k].HWCounters = maps.Clone(counters[i])
		}
	}
}

// Two ranks on host a read one device: each counter counts once, at the
// larger of their readings, not twice; host b's device adds to it. The
// merged run warns of the RNR NAKs through the writer's judgement.
func TestMergeHWCountersByHost(t *testing.T) {
	parts := ranks(t, 3, onHosts([]string{"a", "a", "b"}, []map[string]uint64{
		{"send_rnr_err": 10, "sent_pkts": 100, "duplicate_request": 0},
		{"send_rnr_err": 12, "sent_pkts": 90, "duplicate_request": 0},
		{"send_rnr_err": 1, "sent_pkts": 50, "duplicate_request": 0},
	}))
	run, logs, warnings, err := Runs(parts)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	want := map[string]uint64{"send_rnr_err": 13, "sent_pkts": 150, "duplicate_request": 0}
	for _, cl := range logs {
		if !maps.Equal(cl.Cell.HWCounters, want) {
			t.Errorf("%s: merged %v, want %v", cl.Cell.Name(), cl.Cell.HWCounters, want)
		}
	}
	if got := parts[0].Run.Cells[0].HWCounters["send_rnr_err"]; got != 10 {
		t.Errorf("the merge changed rank 0's counters: send_rnr_err %d", got)
	}
	dir, err := results.WriteRun(t.TempDir(), "merged", run, logs, report.WriteSummary)
	if err != nil {
		t.Fatal(err)
	}
	back, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Cells {
		if !slices.ContainsFunc(c.Warnings, func(w results.Warning) bool {
			return w.Kind == results.WarnRNRRetransmit && strings.Contains(w.Message, "send_rnr_err 13")
		}) {
			t.Errorf("%s: warnings %+v", c.Name(), c.Warnings)
		}
	}
}

// A host whose rank recorded no counters leaves its device out of the sum,
// and the merge says so; one rank of a host without them is made up for
// by another rank of that host; no counters anywhere merge to none.
func TestMergeHWCountersMissing(t *testing.T) {
	rnr := map[string]uint64{"rcvd_rnr_err": 4}
	for _, c := range []struct {
		name     string
		hosts    []string
		counters []map[string]uint64
		want     map[string]uint64
		warns    bool
	}{
		{"host without", []string{"a", "b"}, []map[string]uint64{rnr, nil}, rnr, true},
		{"rank without", []string{"a", "a"}, []map[string]uint64{nil, rnr}, rnr, false},
		{"tcp", []string{"a", "b"}, []map[string]uint64{nil, nil}, nil, false},
	} {
		_, logs, warnings, err := Runs(ranks(t, 2, onHosts(c.hosts, c.counters)))
		if err != nil {
			t.Fatal(err)
		}
		for _, cl := range logs {
			if got := cl.Cell.HWCounters; !maps.Equal(got, c.want) || (got == nil) != (c.want == nil) {
				t.Errorf("%s: %s merged %v, want %v", c.name, cl.Cell.Name(), got, c.want)
			}
		}
		w := strings.Join(warnings, "\n")
		if got := strings.Contains(w, "recorded no RDMA device counters"); got != c.warns {
			t.Errorf("%s: warnings %q", c.name, w)
		}
	}
}
