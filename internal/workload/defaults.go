package workload

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
)

// Defaults, applied to fields absent from the file. This is the one place
// they are defined; workloads/README.md lists them for users.
const (
	DefaultSeed            = 1
	DefaultKind            = results.KindRdmakv
	DefaultTransport       = rdmakv.DefaultTransport
	DefaultKeyCount        = 1000
	DefaultKeySize         = 16
	DefaultTraceKeySize    = 250 // a trace's longest key before it is hashed: memcached's limit
	DefaultDistribution    = keygen.Uniform
	DefaultZipfianConstant = 0.99 // zipfian, scrambled_zipfian and latest only
	DefaultHotFraction     = 0.2  // hotspot only
	DefaultHotProbability  = 0.8  // hotspot only
	DefaultThreshold       = rdmakv.DefaultEagerThreshold
	DefaultMixGet          = 0.5 // when mix is absent; a mix that is present has absent members 0
	DefaultMixSet          = 0.5
	DefaultPreload         = true
	DefaultOrder           = OrderInterleaved
	DefaultWarmup          = 2 * time.Second  // when phases.warmup is absent
	DefaultMeasure         = 10 * time.Second // when phases.measure is absent and there is no ramp
	DefaultMode            = "closed"
	DefaultConnections     = 1
	DefaultDepth           = 1
	DefaultPacing          = "precise" // open loop, or trace at a speed
	DefaultVerify          = false
	DefaultTimeout         = rdmakv.DefaultTimeout
)

// applyDefaults fills what the file (or a flag) did not set. Values has no
// default: a workload must say which sizes it measures. An open-loop rate
// has none either.
func (w *Workload) applyDefaults() {
	s := w.src
	set := func(path string, f func()) {
		if !s.has(path) {
			f()
		}
	}
	set("name", func() { w.Name = nameFromFile(s.file) })
	set("seed", func() { w.Seed = DefaultSeed })
	set("target.kind", func() { w.Target.Kind = DefaultKind })
	set("target.transport", func() { w.Target.Transport = DefaultTransport })
	set("keys.count", func() { w.Keys.Count = DefaultKeyCount })
	if w.Trace != nil {
		set("keys.size", func() { w.Keys.Size = DefaultTraceKeySize })
	} else {
		set("keys.size", func() { w.Keys.Size = DefaultKeySize })
	}
	if law := w.Keys.SizeLaw(); law != nil {
		w.Keys.Size = law.Max()
	}
	set("keys.distribution", func() { w.Keys.Distribution = DefaultDistribution })
	switch w.Keys.Distribution {
	case keygen.Zipfian, keygen.ScrambledZipfian, keygen.Latest:
		set("keys.zipfian_constant", func() { w.Keys.ZipfianConstant = DefaultZipfianConstant })
	case keygen.Hotspot:
		set("keys.hot_fraction", func() { w.Keys.HotFraction = DefaultHotFraction })
		set("keys.hot_probability", func() { w.Keys.HotProbability = DefaultHotProbability })
	}
	set("thresholds", func() { w.Thresholds = []Threshold{DefaultThreshold} })
	set("order", func() { w.Order = DefaultOrder })
	set("preload", func() { w.Preload = DefaultPreload })
	if w.Trace != nil {
		w.traceDefaults(set)
	} else {
		set("mix", func() { w.Mix = Mix{Get: DefaultMixGet, Set: DefaultMixSet} })
		set("phases.warmup", func() { w.Phases.Warmup = Phase{Duration: Duration(DefaultWarmup)} })
	}
	if w.Load.Ramp == nil && (w.Trace == nil || w.Trace.Loop) {
		set("phases.measure", func() { w.Phases.Measure = Phase{Duration: Duration(DefaultMeasure)} })
	}
	set("load.mode", func() { w.Load.Mode = DefaultMode })
	set("load.connections", func() { w.Load.Connections = DefaultConnections })
	set("load.depth", func() { w.Load.Depth = DefaultDepth })
	if w.Load.Mode == "open" || w.Trace != nil && w.Trace.Speed != SpeedMax {
		set("load.pacing", func() { w.Load.Pacing = DefaultPacing })
	}
	set("verify", func() { w.Verify = DefaultVerify })
	set("timeout", func() { w.Timeout = Duration(DefaultTimeout) })
}

// nameFromFile turns "workloads/ycsb-a.yaml" into "ycsb-a", replacing
// characters a name may not hold with '-'.
func nameFromFile(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	b := []byte(base)
	for i, c := range b {
		if !nameChar(c) {
			b[i] = '-'
		}
	}
	if len(b) == 0 || base == "." {
		return "workload"
	}
	return string(b)
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

// traceDefaults fills the trace section's absent fields and resolves its
// file against the workload file's directory. A replay has no default
// mix or warmup: the trace gives the operations, and a warmup takes the
// window's first part only when asked.
func (w *Workload) traceDefaults(set func(string, func())) {
	t := w.Trace
	set("trace.format", func() { t.Format = DefaultTraceFormat })
	set("trace.speed", func() { t.Speed = DefaultSpeed })
	if t.File != "" && !filepath.IsAbs(t.File) {
		t.path = filepath.Join(filepath.Dir(w.src.file), t.File)
	}
}
