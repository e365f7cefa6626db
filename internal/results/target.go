package results

import "github.com/kvbench/kvbench/rdmakv"

// TargetLabel names the store a run measured for legends and headers:
// the kind and the server's version for a baseline ("redis 7.0.15"), the
// kind and transport for rdmakv ("rdmakv verbs"), whose transport is what
// sets its runs apart.
func (r *Run) TargetLabel() string {
	kind := r.TargetKind()
	if kind == KindRdmakv {
		if r.Transport.Name == "" {
			return kind
		}
		return kind + " " + r.Transport.Name
	}
	if r.Target != nil && r.Target.ServerVersion != "" {
		return kind + " " + r.Target.ServerVersion
	}
	return kind
}

// Baseline says the cell measured a baseline store (redis, memcached):
// one without an eager threshold, whose Threshold, meaningless there, is
// 0, and whose operations were all eager, a request and its reply.
func (c Cell) Baseline() bool { return BaselineStore(c.Store) }

// BaselineStore says a cell's store is a baseline: any kind but rdmakv
// ("" is a cell of no known store, taken as rdmakv's as before kinds).
func BaselineStore(store string) bool { return store != "" && store != KindRdmakv }

// ProtocolLabel is a cell's protocol as tables show it: rdmakv's alone
// ("eager"), another store's after its kind ("redis eager"), where
// tables once showed the kind in its place.
func ProtocolLabel(store, protocol string) string {
	if BaselineStore(store) && protocol != "" {
		return store + " " + protocol
	}
	return protocol
}

// legacyBaselineProtocol says a cell's protocol names a baseline store,
// as cells recorded before Cell.Store had it: none of rdmakv's (eager,
// rendezvous, or unknown for an operation that failed before choosing).
func legacyBaselineProtocol(p string) bool {
	for _, r := range []rdmakv.Protocol{0, rdmakv.Eager, rdmakv.Rendezvous} {
		if p == r.String() {
			return false
		}
	}
	return p != ""
}

// upgradeStores gives each cell recorded before Cell.Store was kept its
// store: a baseline's cell, whose protocol was the kind's name, gets the
// kind as its store and eager, what its operations were, as its protocol
// (its interval log keeps its name); rdmakv's cells the run's kind. The
// ranks' figures of a merged run follow their cells' new names.
func (r *Run) upgradeStores() {
	renamed := map[string]string{}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Store != "" {
			continue
		}
		old := c.Name()
		if legacyBaselineProtocol(c.Protocol) {
			c.Store, c.Protocol = c.Protocol, rdmakv.Eager.String()
		} else {
			c.Store = r.TargetKind()
		}
		if n := c.Name(); n != old {
			renamed[old] = n
		}
	}
	if len(renamed) == 0 {
		return
	}
	for i := range r.Ranks {
		for j := range r.Ranks[i].Cells {
			rc := &r.Ranks[i].Cells[j]
			if n, ok := renamed[rc.Name]; ok {
				rc.Name = n
			}
		}
	}
}
