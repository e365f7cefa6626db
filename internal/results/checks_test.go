package results

import (
	"strings"
	"testing"
)

func TestCheckWarningsNameFailedChecksOnly(t *testing.T) {
	p := 0.001
	ws := CheckWarnings([]Check{
		{Name: CheckStationarity, Method: "mann-kendall", Statistic: 3.2, P: &p, Figure: "rate falls 4%/s", Pass: false},
		{Name: CheckPrecision, Method: "binomial order statistics", Figure: "p99 ±2%", Pass: true},
		{Name: CheckHost, Method: "other processes", Figure: "other processes used 0.60 of 2 CPUs", Pass: false},
	})
	if len(ws) != 2 {
		t.Fatalf("got %d warnings, want 2: %+v", len(ws), ws)
	}
	if ws[0].Kind != "check_stationarity" || !strings.Contains(ws[0].Message, "rate falls 4%/s") || !strings.Contains(ws[0].Message, "p=0.001") {
		t.Errorf("first warning %+v", ws[0])
	}
	if ws[1].Kind != "check_host" || !strings.Contains(ws[1].Message, "(other processes)") {
		t.Errorf("second warning %+v", ws[1])
	}
}

func TestSetChecksReplacesByNameAndMethod(t *testing.T) {
	old := []Check{
		{Name: CheckStationarity, Method: "mann-kendall", Pass: false},
		{Name: CheckIndependence, Method: "spearman lag-1", Pass: true},
	}
	got := SetChecks(old, []Check{{Name: CheckStationarity, Method: "mann-kendall", Pass: true}})
	if len(got) != 2 || got[0].Name != CheckIndependence || got[1].Name != CheckStationarity || !got[1].Pass {
		t.Fatalf("SetChecks = %+v", got)
	}
	if old[0].Pass {
		t.Fatal("SetChecks changed its argument")
	}
	if !(Cell{Checks: got}).Trusted() || (Cell{Checks: old}).Trusted() {
		t.Error("Trusted disagrees with the checks' verdicts")
	}
}

// A merged cell keeps a check failed on any rank, else the first rank's.
func TestMergeChecksKeepsTheFailedOnes(t *testing.T) {
	a := []Check{
		{Name: CheckLateStarts, Method: "share late", Statistic: 0, Pass: true},
		{Name: CheckIndependence, Method: "spearman lag-1", Statistic: 0.02, Pass: true},
	}
	b := []Check{
		{Name: CheckLateStarts, Method: "share late", Statistic: 0.2, Pass: false},
		{Name: CheckIndependence, Method: "spearman lag-1", Statistic: 0.05, Pass: true},
		{Name: CheckInterarrival, Method: "interval spread", Statistic: 0.5, Pass: false},
	}
	got := MergeChecks(a, b)
	if len(got) != 3 || got[0].Name != CheckIndependence || got[0].Statistic != 0.02 ||
		got[1].Name != CheckInterarrival || got[1].Pass || got[2].Name != CheckLateStarts || got[2].Statistic != 0.2 {
		t.Errorf("merged %+v", got)
	}
	if again := MergeChecks(got, a); len(again) != 3 || again[2].Pass {
		t.Errorf("a passing rank after a failing one: %+v", again)
	}
}
