package workload

import (
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// Limits that keep a workload runnable; each is an error when exceeded.
const (
	MaxKeySize    = 1024    // bytes
	MaxValueSize  = 1 << 30 // 1 GiB
	MaxValueSizes = 1000    // distinct value sizes in one sweep
	MaxThresholds = 100
	MaxRampSteps  = 1000
	mixTolerance  = 1e-9
	maxNameLength = 100
)

// Load modes, pacings, polling modes and cell orders the schema accepts;
// transports are rdmakv's and distributions keygen's.
var (
	Modes   = []string{"closed", "open"}
	Pacings = []string{"precise", "coarse"}
	Polls   = []string{"busy", "event"}
	Orders  = []string{OrderInterleaved, OrderThresholds}
)

// Cell orders (Workload.Order).
const (
	OrderInterleaved = "interleaved"
	OrderThresholds  = "thresholds"
)

// Validate returns every problem with the workload, joined, each a
// *FieldError positioned at the field (or naming the flag that set it); nil
// if there is none. LoadFile and Parse call it; call it again after
// ApplyOverrides.
func (w *Workload) Validate() error { return join(w.problems()) }

type checker struct {
	src  *source
	errs []*FieldError
}

func (c *checker) add(path, format string, args ...any) {
	if c.src != nil && c.src.related(path) {
		return // the decoder already reported this part; its value is not the user's
	}
	c.put(path, format, args...)
}

// put adds a problem at path even where the decoder failed inside it: a
// problem with the field being there at all, which a part of it that
// failed to decode does not change.
func (c *checker) put(path, format string, args ...any) {
	e := &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
	if c.src != nil {
		l := c.src.at(path)
		e.File, e.Line, e.Col, e.Flag = c.src.file, l.line, l.col, l.flag
	}
	c.errs = append(c.errs, e)
}

func (c *checker) has(path string) bool { return c.src.has(path) }

// line is " (line N)" where the file sets path, "" elsewhere.
func (c *checker) line(path string) string {
	if c.src == nil {
		return ""
	}
	if l, ok := c.src.locs[path]; ok && l.line > 0 {
		return fmt.Sprintf(" (line %d)", l.line)
	}
	return ""
}

func oneOf(v string, allowed []string) bool { return slices.Contains(allowed, v) }

func (w *Workload) problems() []*FieldError {
	c := &checker{src: w.src}
	w.checkName(c)
	w.checkTarget(c)
	w.checkKeys(c)
	if w.Trace != nil {
		w.checkTrace(c)
	} else {
		w.checkValues(c)
		w.checkMix(c)
	}
	w.checkThresholds(c)
	w.checkAdaptive(c)
	w.checkOrder(c)
	w.checkLoadAndPhases(c)
	w.checkVerify(c)
	if w.Timeout <= 0 {
		c.add("timeout", "must be positive, got %v", w.Timeout)
	}
	return c.errs
}

func (w *Workload) checkName(c *checker) {
	switch {
	case w.Name == "":
		c.add("name", "must not be empty")
	case len(w.Name) > maxNameLength:
		c.add("name", "longer than %d characters", maxNameLength)
	default:
		for i := 0; i < len(w.Name); i++ {
			if !nameChar(w.Name[i]) {
				c.add("name", "%q: use only letters, digits, '-', '_' and '.' (it names result directories)", w.Name)
				break
			}
		}
	}
}

func (w *Workload) checkTarget(c *checker) {
	if k := w.Target.Kind; k != "" && !oneOf(k, store.Kinds()) {
		c.add("target.kind", "%q is not a kind of store (want one of: %s)", w.Target.Kind, strings.Join(store.Kinds(), ", "))
	} else if w.Target.Baseline() {
		w.checkBaseline(c)
		return
	}
	if transports := rdmakv.Transports(); !oneOf(w.Target.Transport, transports) {
		c.add("target.transport", "%q is not a transport (want one of: %s)", w.Target.Transport, strings.Join(transports, ", "))
	}
	if p := w.Target.Poll; p != "" || c.has("target.poll") {
		switch {
		case !oneOf(p, Polls):
			c.add("target.poll", "%q is not a polling mode (want one of: %s)", p, strings.Join(Polls, ", "))
		case p == "busy" && w.Target.Transport == rdmakv.TransportTCP:
			c.add("target.poll", "busy polls an RDMA completion queue; transport tcp waits on its socket (use verbs or auto, or poll: event)")
		}
	}
	if f := w.Target.AuthFile; f != "" {
		if _, err := rdmakv.ReadSecret(f); err != nil {
			c.add("target.auth_file", "%v", err)
		}
	}
	w.checkProfile(c)
	if t := w.Target.TOS; t < 0 || t > 255 {
		c.add("target.tos", "%d is not a type-of-service byte (want 0 to 255: DSCP << 2 | ECN, e.g. 104 for DSCP 26)", t)
	}
	w.checkServer(c)
}

// checkServer checks target.server's form; empty is an embedded server.
func (w *Workload) checkServer(c *checker) {
	if s := w.Target.Server; s != "" {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			c.add("target.server", "%q: want host:port (leave empty for an embedded server): %v", s, err)
		} else if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 || host == "" {
			c.add("target.server", "%q: want host:port with a host and a port from 1 to 65535", s)
		}
	}
}

func (w *Workload) checkKeys(c *checker) {
	k := w.Keys
	if k.Count < 1 {
		c.add("keys.count", "must be at least 1, got %d", k.Count)
	}
	if k.SizeDistribution != nil {
		w.checkKeyLaw(c)
	} else if k.Size < 1 || k.Size > MaxKeySize {
		c.add("keys.size", "must be from 1 to %d bytes, got %d", MaxKeySize, k.Size)
	} else if capacity := keygen.Capacity(k.Size); k.Count >= 1 && int64(k.Count) > capacity {
		c.add("keys.count", "%d keys do not fit in %d-byte keys ('k' and %d decimal digits hold %d); raise keys.size", k.Count, k.Size, k.Size-1, capacity)
	}
	if !oneOf(k.Distribution, keygen.Distributions) {
		c.add("keys.distribution", "%q is not a distribution (want one of: %s)", k.Distribution, strings.Join(keygen.Distributions, ", "))
		return
	}
	zipf := k.Distribution == keygen.Zipfian || k.Distribution == keygen.ScrambledZipfian || k.Distribution == keygen.Latest
	hot := k.Distribution == keygen.Hotspot
	if zipf {
		if !(k.ZipfianConstant > 0 && k.ZipfianConstant < 1) {
			c.add("keys.zipfian_constant", "must be strictly between 0 and 1, got %v", k.ZipfianConstant)
		}
	} else if c.has("keys.zipfian_constant") {
		c.add("keys.zipfian_constant", "only used with distributions zipfian, scrambled_zipfian and latest, not %s", k.Distribution)
	}
	if hot {
		if !(k.HotFraction > 0 && k.HotFraction <= 1) {
			c.add("keys.hot_fraction", "must be in (0, 1], got %v", k.HotFraction)
		}
		if !(k.HotProbability >= 0 && k.HotProbability <= 1) {
			c.add("keys.hot_probability", "must be in [0, 1], got %v", k.HotProbability)
		}
	} else {
		for _, f := range []string{"keys.hot_fraction", "keys.hot_probability"} {
			if c.has(f) {
				c.add(f, "only used with distribution hotspot, not %s", k.Distribution)
			}
		}
	}
}

func checkValueSize(c *checker, path string, s Size) bool {
	if c.src != nil && !c.has(path) && s == 0 {
		c.add(path, "missing: give a value size")
		return false
	}
	if s < 1 || s > MaxValueSize {
		c.add(path, "value size must be from 1B to %v, got %d", Size(MaxValueSize), int64(s))
		return false
	}
	return true
}

func (w *Workload) checkValues(c *checker) {
	v := w.Values
	if v.Distribution != nil || c.has("values.distribution") {
		w.checkDistribution(c)
		return
	}
	if len(v.Sizes) == 0 && v.Range == nil {
		c.add("values", "no value sizes: give values.sizes, values.range or both, or values.distribution")
		return
	}
	if c.has("values.sizes") && len(v.Sizes) == 0 {
		c.add("values.sizes", "empty list; remove it or list sizes")
	}
	seen := map[Size]int{}
	for i, s := range v.Sizes {
		p := fmt.Sprintf("values.sizes[%d]", i)
		if !checkValueSize(c, p, s) {
			continue
		}
		if j, dup := seen[s]; dup {
			c.add(p, "%v listed twice (also values.sizes[%d])", s, j)
		}
		seen[s] = i
	}
	rangeTooBig := false
	if r := v.Range; r != nil {
		okMin := checkValueSize(c, "values.range.min", r.Min)
		okMax := checkValueSize(c, "values.range.max", r.Max)
		if okMin && okMax && r.Max < r.Min {
			c.add("values.range.max", "%v is below min %v", r.Max, r.Min)
		}
		if _, _, err := parseStep(r.Step); err != nil {
			c.add("values.range.step", "%v", err)
		} else if okMin && okMax && r.Max >= r.Min {
			if n := len(rangeSizes(r, MaxValueSizes+1)); n > MaxValueSizes {
				c.add("values.range.step", "the range gives more than %d sizes; use a larger step", MaxValueSizes)
				rangeTooBig = true
			}
		}
	}
	if n := len(w.ValueSizes()); n > MaxValueSizes && !rangeTooBig {
		c.add("values", "%d value sizes, more than %d", n, MaxValueSizes)
	}
}

func (w *Workload) checkThresholds(c *checker) {
	if len(w.Thresholds) == 0 {
		c.add("thresholds", "no thresholds: list at least one eager threshold (bytes), or remove the field for the default %d", DefaultThreshold)
		return
	}
	if len(w.Thresholds) > MaxThresholds {
		c.add("thresholds", "%d thresholds, more than %d", len(w.Thresholds), MaxThresholds)
	}
	seen := map[Threshold]int{}
	for i, t := range w.Thresholds {
		p := fmt.Sprintf("thresholds[%d]", i)
		if t != AdaptiveThreshold && (t < 0 || t > MaxValueSize) {
			c.add(p, "must be from 0 to %v, got %d", Size(MaxValueSize), int64(t))
			continue
		}
		if j, dup := seen[t]; dup {
			c.add(p, "%v listed twice (also thresholds[%d])", t, j)
		}
		seen[t] = i
	}
}

// checkOrder allows an empty order only where no default was applied (a
// workload built in code); it then means the default.
func (w *Workload) checkOrder(c *checker) {
	if o := w.Order; (o != "" || c.has("order")) && !oneOf(o, Orders) {
		c.add("order", "%q is not a cell order (want one of: %s)", o, strings.Join(Orders, ", "))
	}
}

func (w *Workload) checkMix(c *checker) {
	m := w.Mix
	for _, f := range []struct {
		name string
		v    float64
	}{{"get", m.Get}, {"set", m.Set}, {"delete", m.Delete}} {
		if f.v < 0 || f.v > 1 {
			c.add("mix."+f.name, "must be from 0 to 1, got %v", f.v)
		}
	}
	if sum := m.Get + m.Set + m.Delete; math.Abs(sum-1) > mixTolerance {
		c.add("mix", "get + set + delete = %.12g, must be 1", sum)
	}
}

func checkPhase(c *checker, path string, p Phase, required bool) {
	if p.Duration < 0 {
		c.add(path+".duration", "must not be negative, got %v", p.Duration)
	}
	if p.Ops < 0 {
		c.add(path+".ops", "must not be negative, got %d", p.Ops)
	}
	if p.Duration > 0 && p.Ops > 0 {
		c.add(path, "set duration or ops, not both")
	}
	if required && p.Until == nil && p.Duration <= 0 && p.Ops <= 0 && p.Duration >= 0 && p.Ops >= 0 {
		c.add(path, "needs a positive duration or ops")
	}
	checkUntil(c, path, p)
}

func (w *Workload) checkLoadAndPhases(c *checker) {
	l := w.Load
	checkPhase(c, "phases.warmup", w.Phases.Warmup, false)
	w.checkUntilFits(c)
	if l.Ramp != nil && c.has("phases.measure") {
		c.add("phases.measure", "with load.ramp the measure phase is the whole ramp; remove phases.measure")
	} else if l.Ramp == nil && (w.Trace == nil || w.Trace.Loop) {
		checkPhase(c, "phases.measure", w.Phases.Measure, true)
	}
	if l.Connections < 1 {
		c.add("load.connections", "must be at least 1, got %d", l.Connections)
	}
	if l.Depth < 1 {
		c.add("load.depth", "must be at least 1, got %d", l.Depth)
	}
	switch l.Mode {
	case "closed":
		if c.has("load.rate") {
			c.add("load.rate", "only used with mode open (closed loop issues as fast as replies come)")
		}
		if l.Ramp != nil {
			c.add("load.ramp", "only used with mode open")
		}
		if w.Trace == nil && setPacing(c, &l) {
			c.add("load.pacing", "only used with mode open (closed loop has no schedule to keep)")
		}
	case "open":
		if l.Ramp != nil && c.has("load.rate") {
			c.add("load.rate", "set rate or ramp, not both")
		}
		switch {
		case l.Ramp != nil:
			checkRamp(c, l.Ramp)
		case l.Rate <= 0:
			c.add("load.rate", "open loop needs a positive rate (ops/s over all connections) or a ramp, got %v", l.Rate)
		}
		checkPacing(c, &l)
	default:
		c.add("load.mode", "%q is not a load mode (want one of: %s)", l.Mode, strings.Join(Modes, ", "))
	}
}

// setPacing says the workload sets load.pacing: its file, or its code.
func setPacing(c *checker, l *Load) bool {
	return c.has("load.pacing") || (c.src == nil && l.Pacing != "")
}

// checkPacing checks load.pacing where it applies. Empty is allowed only
// where no default was applied (a workload built in code); it then means
// the default.
func checkPacing(c *checker, l *Load) {
	if (l.Pacing != "" || c.has("load.pacing")) && !oneOf(l.Pacing, Pacings) {
		c.add("load.pacing", "%q is not a pacing (want one of: %s)", l.Pacing, strings.Join(Pacings, ", "))
	}
}

func checkRamp(c *checker, r *Ramp) {
	ok := true
	for _, f := range []struct {
		name string
		v    float64
	}{{"start", r.Start}, {"end", r.End}, {"step", r.Step}} {
		if p := "load.ramp." + f.name; c.src != nil && !c.has(p) {
			c.add(p, "missing: give a positive rate in ops/s")
			ok = false
		} else if f.v <= 0 {
			c.add(p, "must be positive, got %v", f.v)
			ok = false
		}
	}
	if c.src != nil && !c.has("load.ramp.step_duration") {
		c.add("load.ramp.step_duration", "missing: give how long each rate lasts, like \"5s\"")
	} else if r.StepDuration <= 0 {
		c.add("load.ramp.step_duration", "must be positive, got %v", r.StepDuration)
	}
	if ok && math.Abs(r.End-r.Start)/r.Step >= MaxRampSteps {
		c.add("load.ramp.step", "more than %d steps from %v to %v; use a larger step", MaxRampSteps, r.Start, r.End)
	}
}

// checkVerify: verify mode gives each worker (connection x depth slot) its
// own keys, so there must be at least one key per worker. The problem is
// reported at a flag that set one of the fields if any (that is what the
// user just changed), else at keys.count.
func (w *Workload) checkVerify(c *checker) {
	l, n := w.Load, int64(w.Keys.Count)
	if !w.Verify || l.Connections < 1 || l.Depth < 1 || n < 1 {
		return
	}
	workers := int64(l.Connections) * int64(l.Depth)
	if n >= workers {
		return
	}
	path := "keys.count"
	if c.src != nil {
		for _, p := range []string{"load.connections", "load.depth", "verify"} {
			if c.src.at(p).flag != "" && c.has(p) {
				path = p
				break
			}
		}
	}
	c.add(path, "verify mode gives each of the connections x depth = %d workers its own keys, but keys.count is %d; raise keys.count, lower the load or turn verify off", workers, n)
}

// checkDistribution checks values.distribution, which sizegen.Parse has
// read (the decoder reported its problems): it stands alone, and its
// largest size is a value's at most.
func (w *Workload) checkDistribution(c *checker) {
	v := w.Values
	for _, p := range []string{"values.sizes", "values.range"} {
		if c.has(p) || p == "values.sizes" && len(v.Sizes) > 0 || p == "values.range" && v.Range != nil {
			c.add(p, "does not combine with values.distribution%s, which draws each value's size: give one or the other", c.line("values.distribution"))
		}
	}
	checkLawMax(c, "values.distribution", v.Distribution, MaxValueSize, "a value", "1MiB")
}

// checkLawMax checks that the distribution d at path draws no size above
// limit, the most that what ("a value", "a key") may have; suggest is a
// max to propose for a law with no largest size.
func checkLawMax(c *checker, path string, d *Distribution, limit int, what, suggest string) {
	if d == nil || d.law == nil {
		return
	}
	switch m := d.law.Max(); {
	case d.tail != "":
		c.add(path, "%s has no largest size (its tail ends only where a float64 runs out, at %s): give max, at most %v, to clamp it, like max: %s",
			d.tail, units.Bytes(int64(m)), Size(limit), suggest)
	case m > limit && c.has(path+".max"):
		c.add(path+".max", "lets sizes up to %s through, above the %v %s may have: lower it to at most %v", units.Bytes(int64(m)), Size(limit), what, Size(limit))
	case m > limit:
		c.add(path, "draws sizes up to %s, above the %v %s may have: give max, at most %v, or lower the sizes", units.Bytes(int64(m)), Size(limit), what, Size(limit))
	}
}
