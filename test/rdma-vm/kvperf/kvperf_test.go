package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

func TestFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{nil, []string{"-addr is required", "-check is required"}},
		{[]string{"-addr", "x:1", "-check", "-transport", "ib", "-timeout", "0s"}, []string{`-transport "ib"`, "-timeout 0s must be positive"}},
		{[]string{"-addr", "x:1", "-check", "-check-max", "0"}, []string{"-check-max 0 must be positive"}},
		{[]string{"-addr", "x:1", "-check", "-bench"}, []string{"flag provided but not defined: -bench"}},
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
