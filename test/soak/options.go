package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// options is the command line.
type options struct {
	duration  time.Duration
	transport string
	listen    string
	bin       string
	work      string
	keep      bool // set when -work names a directory: it is the user's
	seed      uint64
}

// The server's clocks are short so that a soak of a minute sees leases
// expire and idle connections dropped many times over.
const (
	lease     = 3 * time.Second
	handshake = 2 * time.Second
	settle    = lease + handshake + 5*time.Second
)

func (o *options) validate() error {
	var errs []error
	if o.transport != "tcp" && o.transport != "verbs" {
		errs = append(errs, fmt.Errorf("-transport %q: want tcp or verbs", o.transport))
	}
	if min := minWarmup + minFaults + settle; o.duration < min {
		errs = append(errs, fmt.Errorf("-duration %v: at least %v (warm-up, faults and settle)", o.duration, min))
	}
	o.keep = o.work != ""
	// exec would look a bare name up in PATH.
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		errs = append(errs, fmt.Errorf("-bin %q: %w", o.bin, err))
	}
	o.bin = bin
	return errors.Join(errs...)
}

const (
	minWarmup = 10 * time.Second
	maxWarmup = time.Minute
	minFaults = 20 * time.Second
)

// phases splits the duration: a sixth of it warm-up (10 s to 1 min), then
// faults, then settle.
func (o *options) phases() (warmup, faults time.Duration) {
	warmup = min(max(o.duration/6, minWarmup), maxWarmup)
	return warmup, o.duration - warmup - settle
}
