package workload

import (
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// checkBaseline checks a baseline's target (store.Kind): an address to
// reach, tcp, none of rdmakv's own settings, and keys the store takes. Thresholds are not refused
// (the shipped workloads list them): a run against a baseline ignores
// them and says so once.
func (w *Workload) checkBaseline(c *checker) {
	t, kind := w.Target, w.Target.Kind
	k, _ := store.Lookup(kind)
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
		if !k.Password {
			c.add("target.auth_file", "%s has no authentication kvbench speaks (leave it out)", kind)
		} else if _, err := store.ReadPassword(t.AuthFile); err != nil {
			c.add("target.auth_file", "%v", err)
		}
	}
	if t.Profile != "" {
		c.add("target.profile", "%s has no eager threshold to apply a profile to (leave it out)", kind)
	}
	if w.OpPhases {
		c.add("op_phases", "%s does not time the phases of its requests; op_phases needs rdmakv", kind)
	}
	switch {
	case k.MaxKey <= 0 || w.Keys.Size <= k.MaxKey:
	case w.Keys.SizeDistribution == nil:
		c.add("keys.size", "%d: %s takes keys of at most %d bytes", w.Keys.Size, kind, k.MaxKey)
	case w.Keys.Size <= MaxKeySize: // else checkKeyLaw reported it
		c.add("keys.size", "draws keys of up to %d bytes, but %s takes keys of at most %d: give max: %dB", w.Keys.Size, kind, k.MaxKey, k.MaxKey)
	}
}

// IgnoredThresholds are the thresholds the workload lists that a run
// ignores: against a baseline (it has no eager threshold) or with a
// profile (it sets them); nil otherwise or when the file lists none.
func (w *Workload) IgnoredThresholds() []Threshold {
	if !w.Target.Baseline() && w.Target.Profile == "" || w.src == nil || !w.src.has("thresholds") {
		return nil
	}
	return w.Thresholds
}
