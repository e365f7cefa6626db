package main

import (
	"testing"
)

func TestParseKvperf(t *testing.T) {
	r, err := parseKvperf([]byte(`{"p50_ns":1500,"ops_per_sec":2000,"extra":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.P50NS == nil || *r.P50NS != 1500 || r.OpsPerSec == nil || *r.OpsPerSec != 2000 || r.MBPerSec != nil {
		t.Errorf("got %+v", r)
	}
	r, err = parseKvperf([]byte("warming up\n{\"p50_ns\": 1}\n{\"p50_ns\": 2}\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.P50NS == nil || *r.P50NS != 2 {
		t.Errorf("want the last object, got %+v", r)
	}
	for _, bad := range []string{"", "no json here", "{\"p50_ns\": \"fast\"}", "[1,2]"} {
		if _, err := parseKvperf([]byte(bad)); err == nil {
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
		_, _ = parseKvperf(in)
	})
}
