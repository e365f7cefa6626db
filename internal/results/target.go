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
// its Protocol is the kind's name and its Threshold, meaningless there,
// is 0.
func (c Cell) Baseline() bool { return BaselineProtocol(c.Protocol) }

// BaselineProtocol says a cell's protocol names a baseline store: it is
// none of rdmakv's (eager, rendezvous, or unknown for an operation that
// failed before choosing), which a results file of any kvbench reads the
// same way whatever drivers this one links.
func BaselineProtocol(p string) bool {
	for _, r := range []rdmakv.Protocol{0, rdmakv.Eager, rdmakv.Rendezvous} {
		if p == r.String() {
			return false
		}
	}
	return p != ""
}
