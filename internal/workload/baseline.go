package workload

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
)

// MaxMemcachedKey is the longest key memcached's text protocol takes.
const MaxMemcachedKey = 250

// checkBaseline checks a redis or memcached target: an address to reach,
// tcp, and none of rdmakv's own settings. Thresholds are not refused
// (the shipped workloads list them): a run against a baseline ignores
// them and says so once.
func (w *Workload) checkBaseline(c *checker) {
	t, kind := w.Target, w.Target.Kind
	if t.Server == "" {
		c.add("target.server", "target.kind %s needs the server's host:port: kvbench starts only rdmakv servers itself", kind)
	}
	w.checkServer(c)
	if t.Transport != rdmakv.TransportTCP && t.Transport != rdmakv.TransportAuto {
		c.add("target.transport", "%q: %s speaks tcp only (want tcp or auto)", t.Transport, kind)
	}
	if t.TOS != 0 {
		c.add("target.tos", "%d: kvbench sets the type of service of rdmakv's connections only (leave it out for %s)", t.TOS, kind)
	}
	if t.Poll != "" {
		c.add("target.poll", "%q: polling modes are rdmakv's on verbs; %s has none (leave it out)", t.Poll, kind)
	}
	if t.AuthFile != "" {
		if kind == results.KindMemcached {
			c.add("target.auth_file", "memcached's text protocol has no authentication (leave it out)")
		} else if _, err := ReadRedisPassword(t.AuthFile); err != nil {
			c.add("target.auth_file", "%v", err)
		}
	}
	if w.OpPhases {
		c.add("op_phases", "%s does not time the phases of its requests; op_phases needs rdmakv", kind)
	}
	if kind == results.KindMemcached && w.Keys.Size > MaxMemcachedKey {
		c.add("keys.size", "%d: memcached takes keys of at most %d bytes", w.Keys.Size, MaxMemcachedKey)
	}
}

// ReadRedisPassword reads a Redis password (requirepass) from path: a
// file kept from other users, as rdmakv's secrets are, trailing newline
// dropped.
func ReadRedisPassword(path string) (string, error) {
	b, err := rdmakv.ReadPrivateFile(path)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", fmt.Errorf("%s: empty password", path)
	}
	return string(b), nil
}

// IgnoredThresholds are the thresholds the workload lists that a run
// against a baseline ignores (it has no eager threshold); nil for rdmakv
// or when the file lists none.
func (w *Workload) IgnoredThresholds() []Size {
	if !w.Target.Baseline() || w.src == nil || !w.src.has("thresholds") {
		return nil
	}
	return w.Thresholds
}
