package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is the kvserver process under test.
type server struct {
	cmd   *exec.Cmd
	addr  string
	stats chan map[string]string // each "kvserver stats" log line, parsed
	log   string                 // path of its stderr
	exit  chan error
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
		"--handshake-timeout", handshake.String(), "--max-conns", "512")
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
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		first <- line
		io.Copy(io.Discard, out)
	}()
	go func() { s.exit <- s.cmd.Wait() }()
	select {
	case line := <-first:
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "kvserver" || f[1] != "listening" {
			s.kill()
			return nil, fmt.Errorf("kvserver said %q, want \"kvserver listening on ADDR\"; log in %s", line, s.log)
		}
		s.addr = f[3]
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
	rss        int64 // bytes
	fds        int
	conns      int
	keys       int
	poolUsed   int64
	goroutines int
}

// sample asks the server for its figures (SIGUSR1) and reads its RSS and
// open files from /proc.
func (s *server) sample() (sample, error) {
	var out sample
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return out, err
	}
	var m map[string]string
	select {
	case m = <-s.stats:
	case <-time.After(10 * time.Second):
		return out, errors.New("kvserver logged no stats within 10s of SIGUSR1")
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
	pid := s.cmd.Process.Pid
	if out.rss, err = rss(pid); err != nil {
		return out, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	out.fds = len(fds)
	return out, err
}

// rss reads a process's resident set from /proc.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
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
