package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

func execute(ctx context.Context, stdout *bytes.Buffer, args ...string) error {
	return executeTo(ctx, stdout, args...)
}

func executeTo(ctx context.Context, stdout interface{ Write([]byte) (int, error) }, args ...string) error {
	root := NewRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(new(bytes.Buffer))
	return root.ExecuteContext(ctx)
}

func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestRunEndToEnd(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "-o", out, "--quiet"); err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(stdout.String())
	if filepath.Dir(dir) != out || !strings.HasPrefix(filepath.Base(dir), "run-quick-") {
		t.Fatalf("quiet output %q: want the run directory under %s", dir, out)
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.EndReason != results.EndCompleted || r.Seed != 5 || !r.Transport.Embedded || r.Transport.Name != "tcp" {
		t.Errorf("run: end %q seed %d transport %+v", r.EndReason, r.Seed, r.Transport)
	}
	if r.Verify.Checked == 0 || r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Errorf("verify %+v", r.Verify)
	}
	if r.Transport.ClientPoll != "event" || r.Transport.ServerPoll != "event" {
		t.Errorf("polling: client %q server %q, want event on both sides of tcp", r.Transport.ClientPoll, r.Transport.ServerPoll)
	}
	if l := r.Transport.Limits; l == nil || l.MaxEager < 4096 || l.MaxKey < 16 || l.MaxValue < 8192 || l.PoolSize <= 0 {
		t.Errorf("server limits %+v: want the handshake's limits, covering the workload", l)
	}
	if r.Host.Cores < 1 || r.Host.Kernel == "" || r.Version == "" || r.Start.IsZero() || !r.End.After(r.Start) {
		t.Errorf("run header: host %+v version %q start %v end %v", r.Host, r.Version, r.Start, r.End)
	}
	perSize := map[int]int64{}
	for _, c := range r.Cells {
		perSize[c.ValueSize] += c.Count
		if c.IntervalNs != int64(time.Second) || c.Load.Mode != "closed" || c.Load.Connections != 2 || c.Load.Depth != 2 {
			t.Errorf("%s: interval %d ns, load %+v", c.Hlog, c.IntervalNs, c.Load)
		}
		h, err := c.Hist()
		if err != nil {
			t.Fatal(err)
		}
		m, err := results.CellHlogMerged(dir, c)
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != c.Count || m.TotalCount() != c.Count {
			t.Errorf("%s: count %d, JSON histogram %d, hlog %d", c.Hlog, c.Count, h.TotalCount(), m.TotalCount())
		}
		if got := results.Summarize(m); got != c.Latency {
			t.Errorf("%s: hlog percentiles %+v, JSON %+v", c.Hlog, got, c.Latency)
		}
	}
	if perSize[64] != 1000 || perSize[8192] != 1000 || len(perSize) != 2 {
		t.Errorf("operations per value size %v, want 1000 each for 64 and 8192", perSize)
	}
	sum, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil || !strings.Contains(string(sum), "rendezvous") || !strings.Contains(string(sum), "p99.9[us]") {
		t.Errorf("summary.txt: %v\n%s", err, sum)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestRunFlagsOverride(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	err := execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "-o", out, "-q",
		"--seed", "99", "--connections", "1", "--depth", "3", "--verify=false", "--duration", "300ms", "--phases")
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.Load(strings.TrimSpace(stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	w := r.Workload.(map[string]any)
	if r.Seed != 99 || w["verify"] != false || r.Verify.Checked != 0 {
		t.Errorf("seed %d verify %v checked %d: flags not applied", r.Seed, w["verify"], r.Verify.Checked)
	}
	ph := w["phases"].(map[string]any)["measure"].(map[string]any)
	if ph["duration"] != float64(300*time.Millisecond) || ph["ops"] != nil {
		t.Errorf("measure phase %v, want duration 300ms only", ph)
	}
	for _, c := range r.Cells {
		if c.Load.Connections != 1 || c.Load.Depth != 3 {
			t.Errorf("cell load %+v", c.Load)
		}
		if c.Phases["network"].Count == 0 || c.Phases["server"].Count == 0 {
			t.Errorf("%s: --phases recorded %v", c.Name(), c.Phases)
		}
	}
	if w["op_phases"] != true {
		t.Errorf("--phases: op_phases is %v in the effective workload", w["op_phases"])
	}
	var rep bytes.Buffer
	if err := execute(hangGuard(t), &rep, "report", strings.TrimSpace(stdout.String()), "--phases"); err != nil || !strings.Contains(rep.String(), "network") {
		t.Errorf("report --phases: %v\n%s", err, rep.String())
	}
	// Flags not given leave the file's values.
	if keys := w["keys"].(map[string]any); keys["count"] != float64(64) {
		t.Errorf("keys %v changed without a flag", keys)
	}
}

// An embedded server given a secret requires it, and the run's clients
// prove it: the run completes and records which file it used.
func TestRunWithAuthFile(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "kv.secret")
	if err := os.WriteFile(secret, []byte("run test secret, 32 bytes long!!\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	err := execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "-o", t.TempDir(), "-q",
		"--duration", "200ms", "--auth-file", secret)
	if err != nil {
		t.Fatal(err)
	}
	r, err := results.Load(strings.TrimSpace(stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	target := r.Workload.(map[string]any)["target"].(map[string]any)
	if c := r.Cells[0]; target["auth_file"] != secret || r.Verify.Mismatches != 0 || c.Count == 0 {
		t.Errorf("target %v, first cell %d ops, verify %+v: want a completed run that names the auth file", target, c.Count, r.Verify)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	err := execute(hangGuard(t), &stdout, "run", "testdata/run-bad.yaml", "-o", out)
	if err == nil || !strings.Contains(err.Error(), "run-bad.yaml:5") || !strings.Contains(err.Error(), "sideways") {
		t.Errorf("error %v: want the file and line of load.mode", err)
	}
	for _, flags := range [][]string{
		{"--connections", "0"},
		{"--connections", "40"}, // verify needs a key per worker: 64 keys, 80 workers
		{"--depth", "-1"},
		{"--rate", "-5"},
		{"--transport", "bogus"},
		{"--poll", "spin"},
		{"--order", "sideways"},
		{"--poll", "busy"}, // run-quick.yaml is tcp
		{"--duration", "-1s"},
		{"--server", "nohost"},
		{"--seed", "-1"},
		{"--auth-file", "/nonexistent/kv.secret"},
		{"--rate", "fast"},
		{"--duration", "5"},
		{"--bogus"},
	} {
		err = execute(hangGuard(t), &stdout, append([]string{"run", "testdata/run-quick.yaml", "-o", out}, flags...)...)
		if err == nil || !strings.Contains(err.Error(), flags[0]) {
			t.Errorf("%v: error %v: want the flag named", flags, err)
		}
		if ExitCode(err) != 1 {
			t.Errorf("%v: exit code %d, want 1", flags, ExitCode(err))
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("bad input created %d entries in the results directory", len(ents))
	}
	if ExitCode(err) != 1 {
		t.Errorf("exit code %d, want 1", ExitCode(err))
	}
}

// cancelOn cancels when the progress output matches when (by default, when
// the measure phase starts).
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	when   *regexp.Regexp
	cancel func()
}

func (c *cancelOn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(b)
	if c.when == nil {
		c.when = regexp.MustCompile(`measure: start`)
	}
	if c.when.Match(c.buf.Bytes()) {
		c.cancel()
	}
	return len(b), nil
}

func TestRunInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(hangGuard(t))
	defer cancel()
	w := &cancelOn{cancel: cancel}
	// A long measure phase that only the cancellation ends.
	err := executeTo(ctx, w, "run", "testdata/run-quick.yaml", "-o", out, "--duration", "1h")
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 2 {
		t.Fatalf("error %v: want exit code 2", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 {
		t.Fatalf("%d entries, want the run directory and latest", len(ents))
	}
	r, err := results.Load(filepath.Join(out, results.LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	if r.EndReason != results.EndInterrupted {
		t.Errorf("end reason %q", r.EndReason)
	}
}

// A real SIGINT (what Ctrl-C sends) during the measure phase: the run
// writes what it measured, marks it interrupted and exits with status 2.
func TestRunSIGINT(t *testing.T) {
	// While the test holds a channel for SIGINT the signal cannot kill the
	// test process, even if it lands after the run stopped listening.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	out := t.TempDir()
	var once sync.Once
	// Interrupt once a progress line shows measured operations, so that
	// there is something to keep.
	w := &cancelOn{when: regexp.MustCompile(`measure: [^,]+, [1-9][0-9]* ops/s`), cancel: func() {
		once.Do(func() { syscall.Kill(os.Getpid(), syscall.SIGINT) })
	}}
	// Not the hang guard's context: its cancellation would look like the
	// interrupt. The run is stopped (and its goroutine ended) at cleanup.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- executeTo(ctx, w, "run", "testdata/run-quick.yaml", "-o", out, "--duration", "1h") }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("SIGINT did not stop the run")
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 2 {
		t.Fatalf("error %v: want exit code 2", err)
	}
	r, err := results.Load(filepath.Join(out, results.LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	var measured int64
	for _, c := range r.Cells {
		measured += c.Count
		if _, err := results.CellHlogMerged(filepath.Join(out, results.LatestLink), c); err != nil {
			t.Error(err)
		}
	}
	if r.EndReason != results.EndInterrupted || measured == 0 {
		t.Errorf("end reason %q, %d operations kept: want interrupted with the partial measure phase", r.EndReason, measured)
	}
	if _, err := os.Stat(filepath.Join(out, results.LatestLink, results.SummaryFile)); err != nil {
		t.Error(err)
	}
}

func TestRunOutcome(t *testing.T) {
	bad := bench.VerifyCounts{Checked: 10, Mismatches: 1}
	for _, c := range []struct {
		name string
		rep  bench.Report
		err  error
		code int // -1: no error
		has  string
	}{
		{"clean", bench.Report{Verify: bench.VerifyCounts{Checked: 10}}, nil, -1, ""},
		{"verify failed", bench.Report{Verify: bad}, nil, 1, "verify failed: 1 mismatches"},
		{"interrupted", bench.Report{Interrupted: true}, nil, 2, "interrupted; partial results in DIR"},
		{"interrupted and verify failed", bench.Report{Interrupted: true, Verify: bad}, nil, 2, "verify failed"},
		{"run error", bench.Report{}, errors.New("dial: refused"), 1, "dial: refused"},
	} {
		err := outcome(&c.rep, c.err, "DIR")
		if c.code < 0 {
			if err != nil {
				t.Errorf("%s: %v, want success", c.name, err)
			}
			continue
		}
		if err == nil || ExitCode(err) != c.code || !strings.Contains(err.Error(), c.has) {
			t.Errorf("%s: error %v (exit %d), want exit %d mentioning %q", c.name, err, ExitCode(err), c.code, c.has)
		}
	}
}

func TestRunHelpHasExamples(t *testing.T) {
	var stdout bytes.Buffer
	if err := execute(context.Background(), &stdout, "run", "--help"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Examples:", "kvbench run workloads/quickstart.yaml", "--rate", "--out", "coordinated omission"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	var stdout bytes.Buffer
	if err := execute(context.Background(), &stdout, "version"); err != nil {
		t.Fatal(err)
	}
	if s := stdout.String(); !strings.HasPrefix(s, "kvbench ") || !strings.Contains(s, "git revision ") || !strings.Contains(s, "go1.") ||
		!strings.Contains(s, fmt.Sprintf("rdmakv protocol %d\n", wire.ProtocolVersion)) {
		t.Errorf("version output %q", s)
	}
}

func TestCompletionCommand(t *testing.T) {
	var stdout bytes.Buffer
	if err := execute(context.Background(), &stdout, "completion", "bash"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "__start_kvbench") {
		t.Error("completion bash printed no kvbench completion script")
	}
}

// The test workload is a valid, shortened quickstart.
func TestRunTestdataValid(t *testing.T) {
	if _, err := workload.LoadFile("testdata/run-quick.yaml"); err != nil {
		t.Fatal(err)
	}
}

// Without --quiet and with stdout a file (not a terminal) the run prints
// plain progress lines and the table; transport auto says once what it
// chose; the parent directory's latest link names the new run.
func TestRunPlainOutputLatestAndAuto(t *testing.T) {
	out := t.TempDir()
	stdout, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	var stderr bytes.Buffer
	root := NewRoot()
	root.SetArgs([]string{"run", "testdata/run-quick.yaml", "-o", out, "--transport", "auto"})
	root.SetOut(stdout)
	root.SetErr(&stderr)
	if err := root.ExecuteContext(hangGuard(t)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(stdout.Name())
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"measure: start", "measure: done", "p99.9[us]", "end: completed", "results: "} {
		if !strings.Contains(text, want) {
			t.Errorf("stdout lacks %q:\n%s", want, text)
		}
	}
	if strings.ContainsAny(text, "\r\x1b") {
		t.Errorf("stdout is not a terminal but got carriage returns or escapes:\n%q", text)
	}
	_, dir, _ := strings.Cut(text, "results: ")
	dir = strings.TrimSpace(dir)
	if got, err := os.Readlink(filepath.Join(out, results.LatestLink)); err != nil || got != filepath.Base(dir) {
		t.Errorf("latest -> %q (%v), want %q", got, err, filepath.Base(dir))
	}
	r, err := results.Load(filepath.Join(out, results.LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr.String(), "rdmakv: transport auto: using "+r.Transport.Name); n != 1 || strings.Count(stderr.String(), "transport auto") != 1 {
		t.Errorf("transport %s: stderr says what auto chose %d times, want once:\n%s", r.Transport.Name, n, stderr.String())
	}
}

// A malformed line that run meets while it measures a replay ends the
// run there: results are written with what was measured, the end reason
// naming the line, and the exit status says the run failed.
func TestRunReplayEndsAtABadLine(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 10500 {
		op := "get"
		if i == 10299 {
			op = "peek"
		}
		fmt.Fprintf(&b, "%d,k%d,3,10,%d,%s,0\n", i/1000, i%50, i%4, op)
	}
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(b.String()), 0o644)
	wl := filepath.Join(dir, "replay.yaml")
	os.WriteFile(wl, []byte("trace: {file: t.csv, speed: max}\npreload: false\ntarget: {transport: tcp}\nkeys: {count: 64}\nload: {connections: 2}\n"), 0o644)
	out := t.TempDir()
	var stdout bytes.Buffer
	err := execute(hangGuard(t), &stdout, "run", wl, "-o", out, "--quiet")
	if err == nil || ExitCode(err) == 0 || !strings.Contains(err.Error(), "t.csv:10300:") {
		t.Fatalf("error %v, want one naming t.csv:10300", err)
	}
	r, err := results.Load(strings.TrimSpace(stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range r.Cells {
		n += c.Count
		if c.Trace == nil || c.Trace.File != "t.csv" || c.Trace.Speed != "max" {
			t.Errorf("cell %s: trace %+v", c.Name(), c.Trace)
		}
	}
	if msg, failed := results.EndFailure(r.EndReason); !failed || !strings.Contains(msg, "t.csv:10300:") || n < 10000 {
		t.Errorf("end reason %q, %d requests measured; want the bad line named and the 10,000 before it kept", r.EndReason, n)
	}
}
