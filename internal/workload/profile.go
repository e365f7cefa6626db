package workload

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// checkProfile loads target.profile, whose thresholds then replace the
// workload's.
func (w *Workload) checkProfile(c *checker) {
	t := &w.Target
	t.profile = nil
	if t.Profile == "" {
		return
	}
	p, err := rdmakv.LoadProfile(t.Profile)
	if err != nil {
		c.add("target.profile", "%v", err)
		return
	}
	t.profile = p
}

// ProfileThresholds are the get and set thresholds target.profile gives
// at the workload's load (connections x depth in flight); ok is false
// without a profile.
func (w *Workload) ProfileThresholds() (get, set int, ok bool) {
	p := w.Target.profile
	if p == nil {
		return 0, 0, false
	}
	get, set = p.Thresholds(w.Load.Connections * w.Load.Depth)
	return get, set, true
}

// ProfileSummary says what the profile applies at the workload's load:
// "profile.json: get 16KiB, set 4KiB at 16 in flight"; "" without one.
func (w *Workload) ProfileSummary() string {
	get, set, ok := w.ProfileThresholds()
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s: get %s, set %s at %d in flight", w.Target.Profile,
		units.Bytes(int64(get)), units.Bytes(int64(set)), w.Load.Connections*w.Load.Depth)
}
