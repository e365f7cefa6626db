package report

import (
	"fmt"
	"strconv"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// storeLine names the store the run measured, for the header: the kind
// and the server's version ("redis 7.0.15"), or for rdmakv the protocol
// version its client spoke, where known.
func storeLine(run *results.Run) string {
	kind := run.TargetKind()
	switch {
	case kind == results.KindRdmakv && run.Protocol > 0:
		return fmt.Sprintf("%s, protocol %d", kind, run.Protocol)
	case run.Target != nil && run.Target.ServerVersion != "":
		return kind + " " + run.Target.ServerVersion
	}
	return kind
}

// storeOf is the run's target as the json format gives it: the kind even
// for a run recorded before it was kept.
func storeOf(run *results.Run) results.Target {
	t := results.Target{Kind: run.TargetKind()}
	if run.Target != nil {
		t.ServerVersion = run.Target.ServerVersion
	}
	return t
}

// Thresholds as people and machines read them: a baseline store's cell
// has none, so "-" (thresholdText) or an empty field (thresholdField)
// rather than a 0 that reads as "everything rendezvous"; people read a
// profile's cell as "profile" (csv keeps the number and a policy column).

func thresholdText(threshold int, store, policy string) string {
	switch {
	case results.BaselineStore(store):
		return "-"
	case policy != "":
		return policy
	}
	return units.Bytes(int64(threshold))
}

func thresholdField(threshold int, store string) string {
	if results.BaselineStore(store) {
		return ""
	}
	return strconv.Itoa(threshold)
}
