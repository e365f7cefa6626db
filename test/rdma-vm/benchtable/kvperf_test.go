package main

import (
	"testing"
)

func TestParseKvperf(t *testing.T) {
	runs, err := parseKvperfRuns([]byte(`{"p50_ns":1500,"ops_per_sec":2000,"extra":[1,2]}`))
	if err != nil || len(runs) != 1 {
		t.Fatal(runs, err)
	}
	r := runs[0]
	if r.P50NS == nil || *r.P50NS != 1500 || r.OpsPerSec == nil || *r.OpsPerSec != 2000 || r.MBPerSec != nil {
		t.Errorf("got %+v", r)
	}
	runs, err = parseKvperfRuns([]byte("warming up\n{\"p50_ns\": 1}\n{\"p50_ns\": 2}\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].P50NS == nil || *runs[0].P50NS != 1 || runs[1].P50NS == nil || *runs[1].P50NS != 2 {
		t.Errorf("want both objects in order, got %+v", runs)
	}
	for _, bad := range []string{"", "no json here", "{\"p50_ns\": \"fast\"}", "[1,2]"} {
		if _, err := parseKvperfRuns([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestMibPerSec(t *testing.T) {
	ops, mb := 10.0, 99.0
	// ops_per_sec wins over mb_per_sec: it carries no unit to misread.
	got, err := kvperfResult{OpsPerSec: &ops, MBPerSec: &mb}.mibPerSec(1 << 20)
	if err != nil || got != 10 {
		t.Errorf("got %v, %v; want 10", got, err)
	}
	got, err = kvperfResult{MBPerSec: &mb}.mibPerSec(1 << 20)
	if err != nil || got != 99 {
		t.Errorf("got %v, %v; want 99", got, err)
	}
	if _, err := (kvperfResult{}).mibPerSec(1 << 20); err == nil {
		t.Error("no error without a throughput field")
	}
}

func TestCheckProtocol(t *testing.T) {
	eager := "eager"
	if err := (kvperfResult{Protocol: &eager}).checkProtocol("rendezvous"); err == nil {
		t.Error("no error for an eager answer in a rendezvous case")
	}
	if err := (kvperfResult{Protocol: &eager}).checkProtocol("eager"); err != nil {
		t.Error(err)
	}
	if err := (kvperfResult{}).checkProtocol("eager"); err != nil {
		t.Errorf("a report without protocol: %v", err)
	}
}

func FuzzParseKvperf(f *testing.F) {
	f.Add([]byte(`{"p50_ns":41250,"ops_per_sec":21000.5}`))
	f.Add([]byte("x\n{\"mb_per_sec\":1}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = parseKvperfRuns(in)
	})
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{9, 1, 4}, 4},
		{[]float64{3, 1, 4, 2}, 2.5},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
