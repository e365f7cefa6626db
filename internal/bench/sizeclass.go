package bench

import (
	"math/bits"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/sizegen"
)

// numClasses are the size classes a recording keeps: index 0 for no
// value, index k+1 for class 2^k up to results.MaxClassLog.
const numClasses = results.MaxClassLog + 2

// classIndex is the index of a value of size bytes (results.ClassOf).
func classIndex(size int) int {
	if size <= 0 {
		return 0
	}
	return min(bits.Len(uint(size-1)), results.MaxClassLog) + 1
}

// classOfIndex is results.ClassOf of the sizes of index i.
func classOfIndex(i int) int64 {
	if i == 0 {
		return 0
	}
	return 1 << (i - 1)
}

// classRec is one worker's recording by size class, for a run whose
// values' sizes are drawn (Config.Sizes). Its histograms are made on a
// class's first operation, so a steady state allocates nothing.
type classRec struct {
	hist  [numOps][numProtos][numClasses]*hdrhistogram.Histogram
	bytes [numOps][numProtos][numClasses]int64
}

// record stores one operation of a value of size bytes (0: none) that
// moved moved bytes; latNs is already clamped to the histograms' range.
func (c *classRec) record(op Op, p Protocol, size int, moved, latNs int64) {
	i := classIndex(size)
	h := c.hist[op][p][i]
	if h == nil {
		h = results.NewHistogram()
		c.hist[op][p][i] = h
	}
	h.RecordValue(latNs)
	c.bytes[op][p][i] += moved
}

// classSums are the workers' classes of one (op, protocol) merged.
type classSums struct {
	hist  [numClasses]*hdrhistogram.Histogram
	bytes [numClasses]int64
}

func (s *classSums) add(c *classRec, op Op, p Protocol) {
	for i, h := range c.hist[op][p] {
		if !used(h) {
			continue
		}
		if s.hist[i] == nil {
			s.hist[i] = results.NewHistogram()
		}
		s.hist[i].Merge(h)
		s.bytes[i] += c.bytes[op][p][i]
	}
}

// cell is the classes as results.json keeps them.
func (s *classSums) cell() ([]results.SizeClass, error) {
	var out []results.SizeClass
	for i, h := range s.hist {
		if h == nil {
			continue
		}
		enc, err := results.EncodeHistogram(h)
		if err != nil {
			return nil, err
		}
		out = append(out, results.SizeClass{Class: classOfIndex(i), Count: h.TotalCount(), Bytes: s.bytes[i],
			P50: h.ValueAtQuantile(50), P99: h.ValueAtQuantile(99), Histogram: enc})
	}
	return out, nil
}

// attachSizes gives each mixed measurement of a phase its op's SizeMix:
// the classes and bytes of the op's protocols together, and for sets the
// law's probability of each class.
func attachSizes(ms []Measurement, law sizegen.Distribution, replay bool) {
	if law == nil && !replay {
		return
	}
	mixes := map[Op]*results.SizeMix{}
	for i := range ms {
		m := &ms[i]
		mix := mixes[m.Op]
		if mix == nil {
			mix = &results.SizeMix{Classes: map[int64]int64{}, Protocols: map[string]results.ProtocolShare{}}
			if m.Op == OpSet && law != nil {
				mix.Law = classLaw(law)
			}
			mixes[m.Op] = mix
		}
		m.Sizes = mix
		if m.Classes == nil {
			continue
		}
		var sh results.ProtocolShare
		for j, h := range m.Classes.hist {
			if h != nil {
				if j > 0 {
					mix.Classes[classOfIndex(j)] += h.TotalCount()
				}
				sh.Count += h.TotalCount()
				sh.Bytes += m.Classes.bytes[j]
			}
		}
		mix.Protocols[m.Protocol.String()] = sh
	}
	for _, mix := range mixes {
		mix.SetShares()
	}
}

// classLaw is the probability of each size class under law as the
// workload states it, before its min and max clamp it. Sizes below one
// byte count in the first class: a value is never empty.
func classLaw(law sizegen.Distribution) map[int64]float64 {
	d := sizegen.Unclamped(law)
	out := map[int64]float64{}
	prev := 0.0
	for k := 0; k <= results.MaxClassLog; k++ {
		c := d.CDF(1 << k)
		if p := c - prev; p > 0 {
			out[1<<k] = p
		}
		prev = c
	}
	return out
}
