package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// A loader runs one workload with kvbench, over and over, until the soak
// ends. The workloads verify every get and use key sizes of their own, so
// their keys never meet. The victim is the one the fault schedule kills:
// its operations are all rendezvous, so a kill lands mid-transfer.
type loaderSpec struct {
	name    string
	keySize int
	keys    int
	victim  bool
	yaml    string
}

var loaderSpecs = []loaderSpec{
	{name: "eager", keySize: 10, keys: 2000, yaml: `
values: {sizes: [64B, 1KiB]}
thresholds: [4KiB]
mix: {get: 0.6, set: 0.3, delete: 0.1}
phases: {warmup: {duration: 500ms}, measure: {duration: 3s}}
load: {mode: open, rate: 1500, connections: 2, depth: 4}
`},
	{name: "mixed", keySize: 11, keys: 200, yaml: `
values: {sizes: [2KiB, 16KiB, 128KiB]}
thresholds: [4KiB, 64KiB]
mix: {get: 0.5, set: 0.4, delete: 0.1}
phases: {warmup: {duration: 500ms}, measure: {duration: 2s}}
load: {mode: closed, connections: 2, depth: 2}
`},
	{name: "rendezvous", keySize: 12, keys: 32, victim: true, yaml: `
values: {sizes: [256KiB, 1MiB]}
thresholds: [4KiB]
mix: {get: 0.5, set: 0.5}
phases: {warmup: {duration: 500ms}, measure: {duration: 3s}}
load: {mode: closed, connections: 2, depth: 1}
`},
}

// workloadFile writes the spec's workload into dir.
func (sp loaderSpec) workloadFile(dir string) (string, error) {
	doc := fmt.Sprintf("name: soak-%s\nseed: 1\nkeys: {count: %d, size: %d, distribution: uniform}\nverify: true\ntimeout: %v\n%s",
		sp.name, sp.keys, sp.keySize, opTimeout, strings.TrimLeft(sp.yaml, "\n"))
	path := filepath.Join(dir, "soak-"+sp.name+".yaml")
	return path, os.WriteFile(path, []byte(doc), 0o644)
}

// loaderTally is what a loader's runs did.
type loaderTally struct {
	Runs, Killed, Ops int64
	Verify            results.VerifyCounts
	Errors            map[string]int64
	Failures          []string
}

type loader struct {
	spec loaderSpec
	args []string
	out  string // results parent directory

	mu      sync.Mutex
	cur     *exec.Cmd
	started time.Time
	killed  bool
	t       loaderTally
}

func newLoader(sp loaderSpec, o options, addr string) (*loader, error) {
	file, err := sp.workloadFile(o.work)
	if err != nil {
		return nil, err
	}
	l := &loader{spec: sp, out: filepath.Join(o.work, "results-"+sp.name), t: loaderTally{Errors: map[string]int64{}}}
	l.args = []string{"run", file, "--server", addr, "--transport", o.transport, "-o", l.out, "--quiet"}
	if o.transport == "verbs" {
		// Two vCPUs cannot spin for every connection of three loaders.
		l.args = append(l.args, "--poll", "event")
	}
	return l, nil
}

// run starts kvbench runs one after another until ctx ends; the last one
// is interrupted (SIGINT) and its partial results count too.
func (l *loader) run(ctx context.Context, bin string, seed uint64) {
	for n := uint64(0); ctx.Err() == nil; n++ {
		args := append(append([]string(nil), l.args...), "--seed", strconv.FormatUint(seed+n, 10))
		cmd := exec.Command(filepath.Join(bin, "kvbench"), args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		l.mu.Lock()
		err := cmd.Start()
		l.cur, l.started, l.killed = cmd, time.Now(), false
		l.mu.Unlock()
		if err != nil {
			l.fail("start kvbench: %v", err)
			return
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		interrupted := false
		select {
		case err = <-done:
		case <-ctx.Done():
			interrupted = true
			cmd.Process.Signal(os.Interrupt)
			err = <-done
		}
		l.mu.Lock()
		killed := l.killed
		l.cur = nil
		l.mu.Unlock()
		l.settle(err, killed, interrupted, stdout.String(), stderr.String())
	}
}

// settle adds one run's outcome to the tally.
func (l *loader) settle(err error, killed, interrupted bool, stdout, stderr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Runs++
	if killed {
		l.t.Killed++
		return
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		l.failLocked("kvbench: %v", err)
		return
	}
	if interrupted && code == -1 {
		// Interrupted before its signal handler was installed: a run
		// that had not started, and nothing to count.
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == os.Interrupt {
			return
		}
	}
	if code != 0 && !(interrupted && code == 2) {
		l.failLocked("kvbench %s: %v: %s", l.spec.name, err, lastLines(stderr, 5))
	}
	dir := strings.TrimSpace(lastLines(stdout, 1))
	if dir == "" {
		if code == 0 {
			l.failLocked("kvbench %s printed no results directory", l.spec.name)
		}
		return
	}
	run, lerr := results.Load(dir)
	if lerr != nil {
		l.failLocked("kvbench %s results: %v", l.spec.name, lerr)
		return
	}
	l.t.Verify.Checked += run.Verify.Checked
	l.t.Verify.Mismatches += run.Verify.Mismatches
	l.t.Verify.Missing += run.Verify.Missing
	l.t.Verify.Torn += run.Verify.Torn
	for _, c := range run.Cells {
		l.t.Ops += c.Count
		for k, n := range c.Errors {
			l.t.Errors[k] += n
		}
	}
}

// kill SIGKILLs the running kvbench if it has been going for a second (so
// it is past its handshake and moving values); it reports whether it did.
func (l *loader) kill() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil || l.killed || time.Since(l.started) < time.Second {
		return false
	}
	l.killed = true
	return l.cur.Process.Signal(syscall.SIGKILL) == nil
}

func (l *loader) fail(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failLocked(format, a...)
}

func (l *loader) failLocked(format string, a ...any) {
	if len(l.t.Failures) < 10 {
		l.t.Failures = append(l.t.Failures, fmt.Sprintf(format, a...))
	}
}

func (l *loader) tally() loaderTally {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t
}

// lastLines is the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
