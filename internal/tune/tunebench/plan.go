package tunebench

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// Plan is what a tune is asked beyond its workload, as kvbench tune's
// flags say it. A nil or empty field takes the workload's or tune's
// default.
type Plan struct {
	// Ops are the ops to tune, comma-separated (SelectOps).
	Ops string
	// Repeats is tune.Config.Repeats; nil: tune.DefaultRepeats, or one
	// search under an SLO, since a capacity search is long.
	Repeats *int
	// Alpha is tune.Config.Alpha; nil: tune.DefaultAlpha. 0 is refused
	// rather than read as the default, since a user who gives it means
	// none.
	Alpha *float64
	// Objective is tune.Config.Objective; nil: p50, or none under an SLO,
	// which compares capacities.
	Objective *string
	// CPUSide is tune.Config.CPUSide.
	CPUSide string
	// SLO is a latency goal as tune.ParseSLO reads it; empty: none.
	SLO string
	// Connections, Depths and Rates list the loads to compare at, every
	// combination (tune.Loads); an empty list is the workload's.
	Connections, Depths []int
	Rates               []float64
	// MaxMemory, on a distribution of sizes, is the most server plus
	// client receive memory a candidate threshold may need, in bytes
	// (tune.Workload.MaxMemory); 0: no limit.
	MaxMemory int64
	// Predict, on a distribution of sizes, also measures its size
	// classes one by one, to say what their crossovers predict.
	Predict bool
	// Adaptive measures the adaptive policy to compare with the fixed
	// thresholds: on a distribution of sizes beside the candidates
	// (tune.Workload.Adaptive), on fixed sizes beside the two protocols
	// at each size (tune.Config.Adaptive); nil: on.
	Adaptive *bool
}

// Config is the tuning plan for w, checked, with every problem found
// reported at once. Its warnings are for a plan that runs but cannot
// decide anything.
func (p Plan) Config(w *workload.Workload) (tune.Config, []string, error) {
	ops, opsErr := SelectOps(p.Ops, w.Mix)
	cfg := tune.Config{Ops: ops, Repeats: tune.DefaultRepeats, Alpha: tune.DefaultAlpha, KeySize: w.Keys.Size,
		CPUSide: p.CPUSide, Measure: time.Duration(w.Phases.Measure.Duration).Seconds()}
	for _, s := range w.ValueSizes() {
		cfg.Sizes = append(cfg.Sizes, int(s))
	}
	if p.Alpha != nil {
		cfg.Alpha = *p.Alpha
	}
	errs := []error{opsErr}
	if w.Trace != nil {
		errs = append(errs, errors.New("trace: tune measures each of a workload's fixed value sizes forced eager and forced rendezvous, or the whole workload at candidate thresholds on a distribution of sizes; it does not replay a trace: give values.sizes, values.range or values.distribution"))
	}
	// --predict measures single sizes with the workload's drawn keys, each
	// forced eager by the longest key (keys.size) plus the value.
	if w.Keys.SizeDistribution != nil && w.Values.Distribution == nil {
		errs = append(errs, errors.New("keys.size: tune places each value size's threshold by a key's size plus the value's, so measuring single sizes needs keys of one size; give keys.size a size, or tune the whole workload on a distribution of values"))
	}
	switch {
	case p.Repeats != nil:
		cfg.Repeats = *p.Repeats
	case p.SLO != "":
		cfg.Repeats = 1
	}
	if p.SLO != "" {
		slo, err := tune.ParseSLO(p.SLO)
		errs = append(errs, err)
		cfg.SLO = slo
	}
	switch {
	case p.Objective != nil:
		cfg.Objective = tune.Objective(*p.Objective)
	case p.SLO == "":
		cfg.Objective = tune.ObjP50
	}
	loads, err := p.loads(w.Load)
	errs = append(errs, err)
	cfg.Loads = loads
	switch {
	case w.Values.Distribution != nil:
		cfg.Workload, cfg.Sizes, err = p.distribution(w, loads)
		errs = append(errs, err)
	case p.MaxMemory != 0 || p.Predict:
		errs = append(errs, errors.New("--max-memory and --predict choose among or compare with whole-workload runs on a distribution of sizes (values.distribution); this workload has fixed sizes"))
	default:
		cfg.Adaptive = p.Adaptive == nil || *p.Adaptive
	}
	if cfg.Alpha == 0 {
		errs = append(errs, errors.New("--alpha 0: want a significance level in (0, 0.5)"))
	}
	errs = append(errs, cfg.Validate(), cfg.CheckMeasureOps(w.Phases.Measure.Ops))
	if err := errors.Join(errs...); err != nil {
		return cfg, nil, err
	}
	var warnings []string
	what := "size"
	if cfg.Workload != nil {
		what = "candidate threshold"
	}
	if n := stats.SignTestMinN(cfg.Alpha); cfg.SLO == nil && cfg.Repeats < n {
		warnings = append(warnings, fmt.Sprintf("with --repeats %d no %s can show a significant winner at --alpha %g; use %d or more",
			cfg.Repeats, what, cfg.Alpha, n))
	}
	return cfg, warnings, nil
}

// loads are every combination of p's connections, depths and rates, each
// list defaulting to the workload's load l.
func (p Plan) loads(l workload.Load) ([]tune.Load, error) {
	if l.Ramp != nil {
		return nil, errors.New("load.ramp: tune compares at fixed loads; give --rate RATES, or a closed loop")
	}
	conns, depths, rates := p.Connections, p.Depths, p.Rates
	if len(conns) == 0 {
		conns = []int{l.Connections}
	}
	if len(depths) == 0 {
		depths = []int{l.Depth}
	}
	if len(rates) == 0 && l.Mode == "open" {
		rates = []float64{l.Rate}
	}
	return tune.Loads(conns, depths, rates), nil
}

// SelectOps are the ops to tune: those listed (comma-separated, blanks
// ignored), else those the workload's mix issues, else both get and set.
func SelectOps(list string, mix workload.Mix) ([]rdmakv.Op, error) {
	var ops []rdmakv.Op
	if list != "" {
		var errs []error
		for _, name := range strings.Split(list, ",") {
			if name = strings.TrimSpace(name); name != "" {
				op, err := rdmakv.ParseOp(name)
				errs = append(errs, err)
				ops = append(ops, op)
			}
		}
		return ops, errors.Join(errs...)
	}
	if mix.Get > 0 {
		ops = append(ops, rdmakv.OpGet)
	}
	if mix.Set > 0 {
		ops = append(ops, rdmakv.OpSet)
	}
	if len(ops) == 0 {
		ops = []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}
	}
	return ops, nil
}
