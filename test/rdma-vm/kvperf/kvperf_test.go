package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

func TestFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{nil, []string{"-addr is required", "exactly one of -check and -bench"}},
		{[]string{"-addr", "x:1", "-check", "-bench"}, []string{"exactly one"}},
		{[]string{"-addr", "x:1", "-bench", "-op", "put", "-transport", "ib"}, []string{`-op "put"`, `-transport "ib"`}},
		{[]string{"-addr", "x:1", "-bench", "-op", "get"}, []string{"-size 0 must be positive"}},
		{[]string{"-addr", "x:1", "-check", "-op", "get", "-size", "3"}, []string{"-op needs -bench"}},
		{[]string{"-addr", "x:1", "-check", "-cpuprofile", "p.out"}, []string{"-cpuprofile needs -bench"}},
		{[]string{"-addr", "x:1", "-bench", "-inflight", "0"}, []string{"-inflight 0: want 1 to 64"}},
		{[]string{"-addr", "x:1", "-check", "-threshold", "-1", "-poll", "spin", "extra"}, []string{"-threshold -1", `-poll "spin"`, "unexpected arguments"}},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		if code := run(c.args, &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, stderr.String(), w)
			}
		}
	}
}

func startTCP(t *testing.T) string {
	t.Helper()
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Addr()
}

func TestCheckTCP(t *testing.T) {
	addr := startTCP(t)
	var out, errb bytes.Buffer
	if code := run([]string{"-addr", addr, "-transport", "tcp", "-check", "-check-max", "1048576"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if !strings.HasPrefix(out.String(), "ok: ") {
		t.Fatalf("output %q", out.String())
	}
}

func TestBenchTCP(t *testing.T) {
	addr := startTCP(t)
	var out, errb bytes.Buffer
	if code := run([]string{"-addr", addr, "-transport", "tcp", "-bench", "-n", "20"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	sc := bufio.NewScanner(&out)
	var names []string
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if r.N != 20 || r.Inflight != 1 || r.P50NS <= 0 || r.P99NS < r.P50NS || r.OpsPerSec <= 0 || r.MBPerSec <= 0 || r.Poll != "event" {
			t.Errorf("implausible result %+v", r)
		}
		names = append(names, r.Case)
	}
	if got := strings.Join(names, ","); got != "eager-get-64B,rdv-get-64KiB,set-1MiB" {
		t.Fatalf("cases %s", got)
	}
	out.Reset()
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	if code := run([]string{"-addr", addr, "-transport", "tcp", "-poll", "busy", "-bench", "-op", "set", "-size", "100", "-n", "5",
		"-cpuprofile", prof}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Op != "set" || r.Size != 100 || r.Protocol != "eager" || r.Poll != "busy" {
		t.Fatalf("single case: %+v %v", r, err)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Fatalf("cpu profile: %v", err)
	}
	out.Reset()
	if code := run([]string{"-addr", addr, "-transport", "tcp", "-bench", "-op", "get", "-size", "70000", "-n", "7",
		"-inflight", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	r = result{}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.N != 7 || r.Inflight != 3 || r.Protocol != "rendezvous" || r.P50NS <= 0 {
		t.Fatalf("three in flight: %+v %v", r, err)
	}
}
