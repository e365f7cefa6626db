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
		{Name: CheckHost, Method: "load average", Figure: "load 3.1 on 2 CPUs", Pass: false},
	})
	if len(ws) != 2 {
		t.Fatalf("got %d warnings, want 2: %+v", len(ws), ws)
	}
	if ws[0].Kind != "check_stationarity" || !strings.Contains(ws[0].Message, "rate falls 4%/s") || !strings.Contains(ws[0].Message, "p=0.001") {
		t.Errorf("first warning %+v", ws[0])
	}
	if ws[1].Kind != "check_host" || !strings.Contains(ws[1].Message, "(load average)") {
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
