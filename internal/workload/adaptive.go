package workload

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// Adaptive is the adaptive policy's settings (rdmakv.AdaptiveConfig) for
// the workload's adaptive threshold. A field left out takes rdmakv's
// default; results.json records the block as given.
type Adaptive struct {
	// Explore is the share of requests sent by the protocol a class did
	// not choose, so that both stay measured.
	Explore float64 `yaml:"explore" json:"explore,omitempty"`
	// Window is how long a latency sample counts.
	Window Duration `yaml:"window" json:"window,omitempty"`
	// Dwell is the least time between two switches of a class.
	Dwell Duration `yaml:"dwell" json:"dwell,omitempty"`
	// Margin is how much lower, as a share, the other protocol's median
	// must be for a class to switch; BackMargin replaces it for undoing
	// a recent switch.
	Margin     float64 `yaml:"margin" json:"margin,omitempty"`
	BackMargin float64 `yaml:"back_margin" json:"back_margin,omitempty"`
	// Samples is how many latencies a class keeps per protocol.
	Samples int `yaml:"samples" json:"samples,omitempty"`
	// MaxThreshold is the largest threshold the policy may use, which
	// HELLO asks the server for.
	MaxThreshold Size `yaml:"max_threshold" json:"max_threshold,omitempty"`
	// PerConnection gives each connection a policy of its own, as
	// separate processes would have; by default a process's connections
	// share one (rdmakv.AdaptiveGroup) and learn together.
	PerConnection bool `yaml:"per_connection" json:"per_connection,omitempty"`
}

// AdaptiveConfig is the adaptive block as rdmakv takes it: zero, rdmakv's
// defaults, without one.
func (w *Workload) AdaptiveConfig() rdmakv.AdaptiveConfig {
	a := w.Adaptive
	if a == nil {
		return rdmakv.AdaptiveConfig{}
	}
	return rdmakv.AdaptiveConfig{
		MaxThreshold: int(a.MaxThreshold), Explore: a.Explore, Window: time.Duration(a.Window), Dwell: time.Duration(a.Dwell),
		Margin: a.Margin, BackMargin: a.BackMargin, Samples: a.Samples,
	}
}

// String is the block as YAML would give it, the fields set only:
// "adaptive: {explore: 0.05, max_threshold: 16KiB}"; "" for none.
func (a *Adaptive) String() string {
	if a == nil {
		return ""
	}
	var set []string
	for _, f := range a.fields() {
		if !f.zero {
			set = append(set, f.name+": "+f.value)
		}
	}
	if a.PerConnection {
		set = append(set, "per_connection: true")
	}
	return "adaptive: {" + strings.Join(set, ", ") + "}"
}

// adaptiveField is one field of the block: its name, its value as YAML
// gives it, whether it is 0, rdmakv's default (which 0 would silently
// stand for there), and a configuration with only it set, for rdmakv's
// own check.
type adaptiveField struct {
	name, value, def string
	zero             bool
	only             rdmakv.AdaptiveConfig
}

func (a *Adaptive) fields() []adaptiveField {
	type cfg = rdmakv.AdaptiveConfig
	return []adaptiveField{
		{"explore", fmt.Sprint(a.Explore), fmt.Sprint(rdmakv.DefaultAdaptiveExplore), a.Explore == 0, cfg{Explore: a.Explore}},
		{"window", a.Window.String(), rdmakv.DefaultAdaptiveWindow.String(), a.Window == 0, cfg{Window: time.Duration(a.Window)}},
		{"dwell", a.Dwell.String(), rdmakv.DefaultAdaptiveDwell.String(), a.Dwell == 0, cfg{Dwell: time.Duration(a.Dwell)}},
		{"margin", fmt.Sprint(a.Margin), fmt.Sprint(rdmakv.DefaultAdaptiveMargin), a.Margin == 0, cfg{Margin: a.Margin}},
		{"back_margin", fmt.Sprint(a.BackMargin), fmt.Sprintf("%v, or margin if larger", rdmakv.DefaultAdaptiveBackMargin),
			a.BackMargin == 0, cfg{BackMargin: a.BackMargin}},
		{"samples", fmt.Sprint(a.Samples), fmt.Sprint(rdmakv.DefaultAdaptiveSamples), a.Samples == 0, cfg{Samples: a.Samples}},
		{"max_threshold", a.MaxThreshold.String(), Size(rdmakv.DefaultMaxEager).String() + ", or the server's max eager if lower",
			a.MaxThreshold == 0, cfg{MaxThreshold: int(a.MaxThreshold)}},
	}
}

// checkAdaptive checks the adaptive block: it needs an adaptive
// threshold to apply to, each field passes rdmakv's check, and none is 0,
// which rdmakv reads as its default.
func (w *Workload) checkAdaptive(c *checker) {
	a := w.Adaptive
	if a == nil {
		return
	}
	switch {
	case w.Target.Baseline():
		c.put("adaptive", "%s has no eager threshold for an adaptive policy to choose (leave the block out)", w.Target.Kind)
	case w.Target.Profile != "":
		c.put("adaptive", "target.profile%s replaces the thresholds, adaptive among them: give one or the other", c.line("target.profile"))
	case !slices.Contains(w.Thresholds, AdaptiveThreshold):
		c.put("adaptive", "sets the adaptive policy, but thresholds%s list no %s: add %s to them, or leave the block out",
			c.line("thresholds"), AdaptiveName, AdaptiveName)
	}
	for _, f := range a.fields() {
		p := "adaptive." + f.name
		switch {
		case f.zero && f.name == "explore" && c.has(p):
			c.add(p, "0 would send no request by the other protocol, so no class could learn to switch: give a share above 0 "+
				"(default %s), or list the fixed threshold you mean instead", f.def)
		case f.zero && c.has(p):
			c.add(p, "0 is not a setting: rdmakv reads it as its default (%s); leave the field out for that, or give a value above 0", f.def)
		case !f.zero:
			if err := f.only.Validate(); err != nil {
				c.add(p, "%v", err)
			}
		}
	}
}
