package workload

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// UntilStable is the warmup's until: warm up until the per-second p50
// stops trending.
const UntilStable = "stable"

// Until is what ends a phase before its cap. A measure phase ends when
// the 95% confidence interval of each named quantile, on every histogram
// of the cell merged so far, is within that fraction of its estimate; a
// warmup ends when the per-second p50 is Stable.
type Until struct {
	// P99CI and P50CI are the widest half-width allowed of the p99's and
	// the p50's 95% interval, as a fraction of the estimate (0.05 for
	// "5%"); 0: not asked.
	P99CI float64 `yaml:"p99_ci" json:"p99_ci,omitempty"`
	P50CI float64 `yaml:"p50_ci" json:"p50_ci,omitempty"`
	// Stable (written until: stable) ends a warmup once its per-second
	// p50 stops trending.
	Stable bool `yaml:"-" json:"stable,omitempty"`
	// MinOps, set by tune rather than a file, is the fewest operations
	// each histogram must hold before the phase may end.
	MinOps int64 `yaml:"-" json:"min_ops,omitempty"`
}

// Capped reports whether p has a cap, which a phase with Until needs.
func (p Phase) Capped() bool { return p.MaxDuration > 0 || p.MaxOps > 0 }

// decodeField decodes until, which is either the word stable or a
// mapping of precisions.
func (p *Phase) decodeField(d *decoder, name string, n *yaml.Node, path string) bool {
	if name != "until" || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return false
	}
	if n.ShortTag() != "!!str" || n.Value != UntilStable {
		d.fail(n, path, "want %q or a mapping like {p99_ci: 5%%}, got %s", UntilStable, describe(n))
		return true
	}
	p.Until = &Until{Stable: true}
	return true
}

// decodeField decodes the precisions, written as percentages ("5%").
func (u *Until) decodeField(d *decoder, name string, n *yaml.Node, path string) bool {
	var f *float64
	switch name {
	case "p99_ci":
		f = &u.P99CI
	case "p50_ci":
		f = &u.P50CI
	default:
		return false
	}
	v, ok := parsePercent(n)
	if !ok {
		d.fail(n, path, "want a percentage like \"5%%\", got %s", describe(n))
		return true
	}
	*f = v
	return true
}

// parsePercent reads "5%" or "0.5%" as a fraction (0.05, 0.005).
func parsePercent(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return 0, false
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(n.Value), "%")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v != v {
		return 0, false
	}
	return v / 100, true
}
