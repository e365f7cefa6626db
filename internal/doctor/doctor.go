// Package doctor checks what decides whether and how rdmakv runs on this
// machine (RDMA devices, their capabilities, process limits, clock and CPU
// settings) and, given a server, whether and how fast it answers. Every
// problem comes with what to do about it.
package doctor

import (
	"context"
	"slices"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// Status grades a check. Only Fail means a run would not work.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // a run works, but slower or measured less well
	Fail Status = "fail"
)

// Check is one finding: what was looked at, what was found, and the fix
// when it is a problem.
type Check struct {
	Section string `json:"section"` // devices, capabilities, limits or server
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
}

// Report is what Run found.
type Report struct {
	Devices []Device `json:"devices"`
	Server  *Server  `json:"server,omitempty"`
	Checks  []Check  `json:"checks"`
	// OK: no check failed, so a run would work.
	OK bool `json:"ok"`
}

// Options are what the user asked to check.
type Options struct {
	// Device restricts the device checks to one device.
	Device string
	// Server, when set, is dialed over Transport, with Secret if any.
	Server    string
	Transport string
	Secret    []byte
	// Timeout bounds the server probe (default 10s).
	Timeout time.Duration
}

func (r *Report) add(section, name string, s Status, detail, fix string) {
	r.Checks = append(r.Checks, Check{Section: section, Name: name, Status: s, Detail: detail, Fix: fix})
}

// Run runs every check against env.
func Run(ctx context.Context, env Env, opts Options) *Report {
	r := &Report{Devices: []Device{}}
	devs := checkDevices(r, env, opts.Device)
	checkCapabilities(r, devs)
	checkLimits(r, env, devs)
	if opts.Server != "" {
		checkServer(ctx, r, opts)
		if opts.Transport == rdmakv.TransportTCP {
			r.notNeeded(secDevices, secCaps)
		}
	}
	r.OK = true
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.OK = false
		}
	}
	return r
}

// notNeeded grades the failures in sections a run over tcp does not use
// as warnings: that run works without RDMA, and the report still says
// what RDMA would need.
func (r *Report) notNeeded(sections ...string) {
	for i, c := range r.Checks {
		if c.Status == Fail && slices.Contains(sections, c.Section) {
			r.Checks[i].Status = Warn
			r.Checks[i].Detail += " (not needed over tcp)"
		}
	}
}
