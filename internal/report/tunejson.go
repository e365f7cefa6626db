package report

import (
	"io"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// TuneJSON writes a tune's result as kvbench tune keeps it in tune.json:
// the result's data with the decisions also in words, each op's verdict,
// suggestion and deciding phase, each point's flags, and the
// explanations of each load's threshold and of the run's, as Tune prints
// them.
func TuneJSON(w io.Writer, r *tune.Result) error {
	t := newTuneReport(r)
	doc := tuneDoc{Config: r.Config, Objective: r.Objective, Build: r.Build, Result: *r, Explanation: t.explanation()}
	for _, l := range r.Loads {
		ld := loadDoc{Load: l.Load, LoadResult: l, Explanation: t.loadExplanation(&l)}
		for _, o := range l.Ops {
			od := opDoc{Op: o.Op, OpResult: o, Decider: t.decider(&o)}
			od.Verdict, od.Suggestion = t.say(&o)
			for _, p := range o.Points {
				pd := pointDoc{Point: p}
				for _, f := range p.Flags {
					pd.Flags = append(pd.Flags, flagText(f))
				}
				od.Points = append(od.Points, pd)
			}
			ld.Ops = append(ld.Ops, od)
		}
		doc.Loads = append(doc.Loads, ld)
	}
	return indentJSON(w, doc)
}

// The documents of tune.json. Each embeds its tune type, whose JSON
// fields it keeps, in order: the fields before the embedding are the
// type's own leading ones, re-declared to hold documents (shadowing the
// embedded ones, which encoding/json drops), and the words follow it.

type tuneDoc struct {
	Config    tune.Config    `json:"config"`
	Objective tune.Objective `json:"objective"`
	Build     tune.Build     `json:"build"`
	Loads     []loadDoc      `json:"loads"`
	tune.Result
	Explanation []string `json:"explanation"`
}

type loadDoc struct {
	Load tune.Load `json:"load"`
	Ops  []opDoc   `json:"ops"`
	tune.LoadResult
	Explanation []string `json:"explanation"`
}

type opDoc struct {
	Op     rdmakv.Op  `json:"op"`
	Points []pointDoc `json:"points"`
	tune.OpResult
	Verdict    string `json:"verdict"`
	Decider    string `json:"decider,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
}

type pointDoc struct {
	tune.Point
	Flags []string `json:"flags,omitempty"`
}
