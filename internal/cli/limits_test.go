package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// defaultServer is a kvserver with no flags, over TCP.
func defaultServer(t *testing.T, cfg rdmakv.ServerConfig) *rdmakv.Server {
	t.Helper()
	cfg.Listen, cfg.Transport = "127.0.0.1:0", "tcp"
	s, err := rdmakv.Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The connections sweep against a default server: threshold 2 MiB is above
// its max eager. run names every cell of that threshold and fails before
// it measures the threshold-0 cells: no results directory, nothing stored.
func TestRunChecksLimitsFirst(t *testing.T) {
	s := defaultServer(t, rdmakv.ServerConfig{})
	out := t.TempDir()
	_, err := runCLI(t, "run", "../../workloads/connections-sweep.yaml", "--server", s.Addr(),
		"--duration", "200ms", "--warmup", "0", "-o", out)
	if err == nil || ExitCode(err) != 1 {
		t.Fatalf("error %v (exit %d): want exit 1", err, ExitCode(err))
	}
	for _, want := range []string{"cannot run every cell, so nothing was measured", "threshold 2MiB is above the server's max eager 64KiB",
		"values 64B, 256B, 1KiB, 4KiB, 16KiB, 64KiB, 256KiB, 1MiB", "kvserver --max-eager"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "threshold 0B") {
		t.Errorf("threshold 0 fits, yet the error names it:\n%v", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d entries in the results directory, want none", len(ents))
	}
	if n := s.Stats().Keys; n != 0 {
		t.Errorf("the server holds %d keys: the run preloaded before failing", n)
	}
}

// tune keeps sizes whose forced eager the server refuses as unmeasured,
// but a value above the server's max value would fail mid-run: it fails
// up front, naming each such size.
func TestTuneChecksLimitsFirst(t *testing.T) {
	s := defaultServer(t, rdmakv.ServerConfig{MaxValue: 32 << 10})
	out := t.TempDir()
	_, err := runCLI(t, "tune", "testdata/tune-quick.yaml", "--server", s.Addr(), "--repeats", "2", "-o", out)
	if err == nil || !strings.Contains(err.Error(), "value size 64KiB is above the server's max value 32KiB") ||
		strings.Contains(err.Error(), "256B") {
		t.Fatalf("error %v: want 64KiB named, and 256B not", err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d entries in the tune directory, want none", len(ents))
	}
}
