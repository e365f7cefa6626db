package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestRunGolden(t *testing.T) {
	var out bytes.Buffer
	if err := run("testdata/bench", &out); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/table.golden"
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("table differs from %s (rerun with -update after checking):\n%s", golden, out.String())
	}
}

func TestRunWrongProtocol(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"ib_send_lat-64.txt", "ib_send_lat-2.txt", "ib_read_lat-2.txt", "ib_read_lat-65536.txt",
		"ib_write_bw-1048576.txt", "kvperf-get-rdv-64k.json", "kvperf-set-1m.json"} {
		data, err := os.ReadFile("testdata/bench/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/"+f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := `{"case":"get-64B","protocol":"rendezvous","p50_ns":1000,"ops_per_sec":1}`
	if err := os.WriteFile(dir+"/kvperf-get-eager-64.json", []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(dir, &out)
	if err == nil || !strings.Contains(err.Error(), "kvperf-get-eager-64.json: protocol rendezvous, want eager") {
		t.Fatalf("want a protocol error naming the file, got %v", err)
	}
}

func TestRunMissing(t *testing.T) {
	var out bytes.Buffer
	err := run(t.TempDir(), &out)
	if err == nil {
		t.Fatal("no error for an empty directory")
	}
	for _, f := range []string{"ib_send_lat-64.txt", "ib_send_lat-2.txt", "ib_read_lat-2.txt", "ib_read_lat-65536.txt",
		"ib_write_bw-1048576.txt", "kvperf-get-eager-64.json", "kvperf-get-rdv-64k.json", "kvperf-set-1m.json"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "missing") {
		t.Errorf("table does not mark missing figures:\n%s", out.String())
	}
}

func TestPollNote(t *testing.T) {
	cases := []struct {
		polls map[string]bool
		want  string
	}{
		{map[string]bool{}, "not reported"},
		{map[string]bool{"busy": true}, "busy, client and server"},
		{map[string]bool{"event": true}, "event, client and server (perftest busy-polls"},
		{map[string]bool{"event": true, "busy": true}, "mixed"},
	}
	for _, c := range cases {
		if got := pollNote(c.polls); !strings.HasPrefix(got, c.want) {
			t.Errorf("pollNote(%v) = %q, want prefix %q", c.polls, got, c.want)
		}
	}
}
