package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is the kvserver process under test.
type server struct {
	cmd     *exec.Cmd
	addr    string
	metrics string                 // URL of its Prometheus metrics, for the Go runtime's figures
	stats   chan map[string]string // each "kvserver stats" log line, parsed
	log     string                 // path of its stderr
	exit    chan error
}

const poolSize = 128 << 20

// startServer runs kvserver and waits for it to say where it listens.
func startServer(o options) (*server, error) {
	s := &server{stats: make(chan map[string]string, 4), log: filepath.Join(o.work, "kvserver.log"), exit: make(chan error, 1)}
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(filepath.Join(o.bin, "kvserver"), "--transport", o.transport, "--listen", o.listen,
		"--pool-size", strconv.Itoa(poolSize), "--max-value", "1MiB", "--lease", lease.String(),
		"--handshake-timeout", handshake.String(), "--max-conns", "512", "--metrics", "127.0.0.1:0",
		// The shared receive queue keeps its size (--recv-depth's
		// default), so that memory held compares across the run: its
		// growth is bounded by --max-recvs and tested on its own.
		"--max-recvs", "256")
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errp, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start kvserver: %w", err)
	}
	go s.scanLog(errp, logf)
	// It says where it listens, then where its metrics are.
	first := make(chan [2]string, 1)
	go func() {
		r := bufio.NewReader(out)
		var lines [2]string
		for i := range lines {
			lines[i], _ = r.ReadString('\n')
		}
		first <- lines
		io.Copy(io.Discard, out)
	}()
	go func() { s.exit <- s.cmd.Wait() }()
	select {
	case lines := <-first:
		f := strings.Fields(lines[0])
		if len(f) < 4 || f[0] != "kvserver" || f[1] != "listening" {
			s.kill()
			return nil, fmt.Errorf("kvserver said %q, want \"kvserver listening on ADDR\"; log in %s", lines[0], s.log)
		}
		s.addr = f[3]
		f = strings.Fields(lines[1])
		if len(f) != 4 || f[0] != "kvserver" || f[1] != "metrics" {
			s.kill()
			return nil, fmt.Errorf("kvserver said %q, want \"kvserver metrics on URL\"; log in %s", lines[1], s.log)
		}
		s.metrics = f[3]
		return s, nil
	case <-time.After(30 * time.Second):
		s.kill()
		return nil, fmt.Errorf("kvserver did not start in 30s; log in %s", s.log)
	}
}

// scanLog copies the server's log to a file and hands on its stats lines.
func (s *server) scanLog(r io.Reader, f *os.File) {
	defer f.Close()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(f, line)
		if strings.Contains(line, `msg="kvserver stats"`) {
			s.stats <- parseFields(line)
		}
	}
}

// parseFields reads the key=value pairs of a log line (values without
// spaces, which is all a stats line holds).
func parseFields(line string) map[string]string {
	m := make(map[string]string)
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[k] = v
		}
	}
	return m
}

// sample is what the server holds at one moment.
type sample struct {
	mem        memory // only from memSample
	fds        int
	conns      int
	keys       int
	poolUsed   int64
	goroutines int
}

// sample asks the server for its figures (SIGUSR1) and reads its open
// files from /proc.
func (s *server) sample() (sample, error) {
	var out sample
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return out, err
	}
	var m map[string]string
	select {
	case m = <-s.stats:
	case <-time.After(waitWithin):
		return out, fmt.Errorf("kvserver logged no stats within %v of SIGUSR1", waitWithin)
	}
	var err error
	num := func(k string) int64 {
		n, e := strconv.ParseInt(m[k], 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("stats line field %s=%q: %v", k, m[k], e)
		}
		return n
	}
	out.conns, out.keys, out.poolUsed = int(num("conns")), int(num("keys")), num("pool_used")
	out.goroutines = int(num("goroutines"))
	if err != nil {
		return out, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
	out.fds = len(fds)
	return out, err
}

// memory is the server's memory at one moment, in bytes.
type memory struct {
	// anon is its anonymous resident memory (RssAnon): the value pool,
	// the Go heap and stacks, anything it maps. Unlike VmRSS it leaves
	// out the pages of the binary, which page-cache pressure from other
	// processes evicts and a later fault brings back.
	anon int64
	// retained is Go heap memory that is free but still resident
	// (HeapIdle - HeapReleased): the runtime's scavenger returns it to
	// the system at a pace of its own, so it says when a collection
	// happened, not what the server holds.
	retained int64
	// rss is VmRSS, for the report.
	rss int64
}

// held is what the server holds: its anonymous resident memory less the
// freed heap the runtime has yet to return.
func (m memory) held() int64 { return m.anon - m.retained }

// memory reads the server's resident memory from /proc and what of it
// its Go runtime holds free from its metrics.
func (s *server) memory() (memory, error) {
	var m memory
	st, err := procStatus(s.cmd.Process.Pid, "RssAnon", "VmRSS")
	if err != nil {
		return m, err
	}
	m.anon, m.rss = st[0], st[1]
	rt, err := scrape(s.metrics, "go_memstats_heap_idle_bytes", "go_memstats_heap_released_bytes")
	if err != nil {
		return m, err
	}
	m.retained = int64(rt[0] - rt[1])
	return m, nil
}

// procStatus reads the named kB figures of a process's /proc status, in
// bytes.
func procStatus(pid int, names ...string) ([]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(names))
	found := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		name, v, _ := strings.Cut(line, ":")
		if i := slices.Index(names, name); i >= 0 {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("/proc/%d/status: %s: %w", pid, name, err)
			}
			out[i] = kb << 10
			found++
		}
	}
	if found != len(names) {
		return nil, fmt.Errorf("/proc/%d/status lacks one of %q", pid, names)
	}
	return out, nil
}

// scrape reads the named unlabelled figures from a Prometheus text
// endpoint. Each scrape has a connection of its own, closed after it, so
// none lingers in the server's open files.
func scrape(url string, names ...string) ([]float64, error) {
	c := &http.Client{Timeout: waitWithin, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return nil, fmt.Errorf("kvserver metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("kvserver metrics: %s", resp.Status)
	}
	out := make([]float64, len(names))
	found := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		if i := slices.Index(names, f[0]); i >= 0 {
			if out[i], err = strconv.ParseFloat(f[1], 64); err != nil {
				return nil, fmt.Errorf("kvserver metrics: %s: %w", f[0], err)
			}
			found++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kvserver metrics: %w", err)
	}
	if found != len(names) {
		return nil, fmt.Errorf("kvserver metrics at %s lack one of %q", url, names)
	}
	return out, nil
}

// stop and resume pause the whole server process.
func (s *server) stop() error   { return s.cmd.Process.Signal(syscall.SIGSTOP) }
func (s *server) resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

// alive reports an early exit of the server.
func (s *server) alive() error {
	select {
	case err := <-s.exit:
		s.exit <- err
		return fmt.Errorf("kvserver exited during the soak (%v); log in %s", err, s.log)
	default:
		return nil
	}
}

// shutdown stops the server with SIGTERM and reports how it exited.
func (s *server) shutdown() error {
	s.resume()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exit:
		if err != nil {
			return fmt.Errorf("kvserver exit after SIGTERM: %v; log in %s", err, s.log)
		}
		return nil
	case <-time.After(30 * time.Second):
		s.kill()
		return fmt.Errorf("kvserver did not exit within 30s of SIGTERM; log in %s", s.log)
	}
}

func (s *server) kill() { s.cmd.Process.Kill() }
