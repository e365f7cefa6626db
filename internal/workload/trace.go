package workload

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kvbench/kvbench/internal/trace"
)

// Trace is the trace section: the workload replays a recorded trace's
// requests instead of drawing them (values and mix then have no place).
// Its window is a stretch of the trace, by request count (Skip, Ops) or
// by recorded time (Start, Duration); every cell replays the same window.
type Trace struct {
	// File is the trace, relative to the workload file's directory.
	File string `yaml:"file" json:"file"`
	// Format is one of trace.Formats; auto by default.
	Format string `yaml:"format" json:"format"`
	// Speed divides the recorded times: 1 keeps the recorded pace, 10
	// replays ten times faster; SpeedMax issues as fast as connections
	// x depth allow, a closed loop.
	Speed Speed `yaml:"speed" json:"speed"`
	// Skip and Ops: the window leaves out the first Skip requests and
	// takes the next Ops (0: to the end).
	Skip int64 `yaml:"skip" json:"skip,omitempty"`
	Ops  int64 `yaml:"ops" json:"ops,omitempty"`
	// Start and Duration: the window starts Start of recorded time after
	// the trace's first request and lasts Duration of it (0: to the end).
	Start    Duration `yaml:"start" json:"start,omitempty"`
	Duration Duration `yaml:"duration" json:"duration,omitempty"`
	// Loop replays the window again from its beginning when it ends,
	// times continuing, until the measure phase ends; without it the
	// window is the measure phase, unless phases.measure ends it first.
	Loop bool `yaml:"loop" json:"loop,omitempty"`

	// path is File resolved against the workload file's directory.
	path string
}

// Speed is trace.speed: a factor above 0, or SpeedMax (written "max").
type Speed float64

// SpeedMax replays as fast as the load allows.
const SpeedMax Speed = 0

// DefaultTraceFormat and DefaultSpeed apply when the trace section leaves
// them out.
const (
	DefaultTraceFormat       = string(trace.Auto)
	DefaultSpeed       Speed = 1
)

func (s Speed) String() string {
	if s == SpeedMax {
		return "max"
	}
	return strconv.FormatFloat(float64(s), 'g', -1, 64)
}

// MarshalJSON writes "max" or the factor.
func (s Speed) MarshalJSON() ([]byte, error) {
	if s == SpeedMax {
		return []byte(`"max"`), nil
	}
	return json.Marshal(float64(s))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Speed) UnmarshalJSON(b []byte) error {
	if string(b) == `"max"` {
		*s = SpeedMax
		return nil
	}
	return json.Unmarshal(b, (*float64)(s))
}

// Path is the trace file to open: File relative to the workload file, or
// as given for a Workload built in code.
func (t *Trace) Path() string {
	if t.path != "" {
		return t.path
	}
	return t.File
}

// Window describes the window for people and results: "requests 100 to
// 1099", "0s to 20s", "all".
func (t *Trace) Window() string {
	switch {
	case t.Skip > 0 || t.Ops > 0:
		if t.Ops == 0 {
			return fmt.Sprintf("requests from %d", t.Skip)
		}
		return fmt.Sprintf("requests %d to %d", t.Skip, t.Skip+t.Ops-1)
	case t.Start > 0 || t.Duration > 0:
		if t.Duration == 0 {
			return fmt.Sprintf("from %v", time.Duration(t.Start))
		}
		return fmt.Sprintf("%v to %v", time.Duration(t.Start), time.Duration(t.Start+t.Duration))
	}
	return "all"
}

// Spec names the trace's cells in results (results.Cell.Distribution),
// on one line: "trace twitter-synthetic.csv.zst (twitter), 0s to 20s,
// speed 10".
func (t *Trace) Spec() string {
	s := fmt.Sprintf("trace %s (%s), %s, speed %v", filepath.Base(t.File), t.Format, t.Window(), t.Speed)
	if t.Loop {
		s += ", loop"
	}
	return s
}

var speedType = reflect.TypeFor[Speed]()

// speed decodes trace.speed: a positive number or "max".
func (d *decoder) speed(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int", "!!float":
			var f float64
			if n.Decode(&f) == nil && f > 0 && f < 1e9 {
				v.SetFloat(f)
				return
			}
		case "!!str":
			if n.Value == "max" {
				v.SetFloat(float64(SpeedMax))
				return
			}
		}
	}
	d.fail(n, path, "want a speed above 0 (1 the recorded pace, 10 ten times faster) or \"max\", got %s", describe(n))
}

// checkTrace checks the trace section and what a replay leaves no place
// for: value sizes and a mix (the trace has its own), a key distribution
// or drawn key sizes, a rate (speed sets the pace) or verify (the trace's
// keys are no worker's own); and load.pacing at speed max, which keeps no
// time. Without loop the window is the measure phase, which
// phases.measure may cut short.
func (w *Workload) checkTrace(c *checker) {
	t := w.Trace
	why := "trace" + c.line("trace")
	for _, f := range []struct{ path, msg string }{
		{"values", "the trace gives each request's value size"},
		{"mix", "the trace gives the operations"},
		{"keys.distribution", "the trace gives the keys"},
		{"load.rate", "trace.speed sets the pace"},
		{"load.ramp", "trace.speed sets the pace"},
		{"verify", "a trace's keys are no worker's own, so nothing can be checked"},
	} {
		if c.has(f.path) {
			c.add(f.path, "does not combine with %s: %s", why, f.msg)
		}
	}
	if w.Keys.SizeDistribution != nil {
		c.add("keys.size", "does not combine with %s: the trace gives each key, and keys.size is the longest sent as recorded (longer ones are hashed)", why)
	}
	switch {
	case t.Speed != SpeedMax:
		checkPacing(c, &w.Load)
	case setPacing(c, &w.Load):
		c.add("load.pacing", "does not combine with trace.speed max%s: a replay at speed max keeps no recorded times, so has none to pace", c.line("trace.speed"))
	}
	if w.Load.Mode == "open" {
		c.add("load.mode", "does not combine with %s: trace.speed sets the pace (a number replays open loop, max closed)", why)
	}
	if t.File == "" {
		c.add("trace.file", "missing: give the trace file, relative to the workload file")
	} else if st, err := os.Stat(t.Path()); err != nil {
		c.add("trace.file", "%v", err)
	} else if st.IsDir() {
		c.add("trace.file", "%s is a directory, not a trace", t.Path())
	} else if t.Format == string(trace.Auto) {
		// Told once here, so that cells and results name the format.
		f, err := trace.Detect(t.Path())
		if err != nil {
			c.add("trace.file", "%v", err)
		}
		t.Format = string(f)
	}
	if _, err := trace.ParseFormat(t.Format); err != nil {
		c.add("trace.format", "%q is not a trace format (want one of: %s)", t.Format, strings.Join(trace.FormatNames(), ", "))
	}
	if t.Speed < 0 {
		c.add("trace.speed", "must be above 0 or max, got %v", float64(t.Speed))
	}
	for _, f := range []struct {
		path string
		neg  bool
	}{{"trace.skip", t.Skip < 0}, {"trace.ops", t.Ops < 0}, {"trace.start", t.Start < 0}, {"trace.duration", t.Duration < 0}} {
		if f.neg {
			c.add(f.path, "must not be negative")
		}
	}
	if (t.Skip > 0 || t.Ops > 0) && (t.Start > 0 || t.Duration > 0) {
		p := "trace.start"
		if t.Start == 0 {
			p = "trace.duration"
		}
		c.add(p, "give the window by requests (skip, ops) or by recorded time (start, duration), not both")
	}
}
