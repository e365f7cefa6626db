package figure

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// SizeClasses (a cell with a distribution of value sizes) split the
// cell's operations by the power-of-two class of their value's size
// (results.SizeClass). Each class keeps its latency histogram, so the
// merge adds the ranks' classes exactly: counts and bytes sum, and the
// percentiles are the merged histogram's. Report prints them in a view of
// their own (report --by-size).
var SizeClasses = Figure{
	Name:  "size_classes",
	Unit:  NS,
	Has:   func(c results.Cell) bool { return len(c.SizeClasses) > 0 },
	Merge: Merge{New: func() Merger { return classAcc{} }},
}

type classSum struct {
	h     *hdrhistogram.Histogram
	bytes int64
}

// classAcc is the ranks' classes by class.
type classAcc map[int64]*classSum

func (a classAcc) Add(_ *results.Run, c results.Cell) error {
	for _, k := range c.SizeClasses {
		h, err := results.DecodeHistogram(k.Histogram)
		if err != nil {
			return fmt.Errorf("%s size class %d: %w", c.Name(), k.Class, err)
		}
		s := a[k.Class]
		if s == nil {
			s = &classSum{h: results.NewHistogram()}
			a[k.Class] = s
		}
		s.h.Merge(h)
		s.bytes += k.Bytes
	}
	return nil
}

func (a classAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	c.SizeClasses = nil
	for _, k := range results.SortedClasses(a) {
		s := a[k]
		enc, err := results.EncodeHistogram(s.h)
		if err != nil {
			return nil, err
		}
		c.SizeClasses = append(c.SizeClasses, results.SizeClass{Class: k, Count: s.h.TotalCount(), Bytes: s.bytes,
			P50: s.h.ValueAtQuantile(50), P99: s.h.ValueAtQuantile(99), Histogram: enc})
	}
	return nil, nil
}

// Sizes (a cell with a distribution of value sizes) are the sizes its op
// moved at its threshold and the protocols' shares (results.SizeMix). The
// ranks drew their sizes from one law, each its own operations: the
// merge sums the classes and each protocol's counts and bytes, keeps the
// law, and takes the shares anew from the sums.
var Sizes = Figure{
	Name:  "sizes",
	Unit:  "operations",
	Has:   func(c results.Cell) bool { return c.Sizes != nil },
	Merge: Merge{New: func() Merger { return &mixAcc{} }},
}

type mixAcc struct{ m *results.SizeMix }

func (a *mixAcc) Add(_ *results.Run, c results.Cell) error {
	if c.Sizes == nil {
		return nil
	}
	if a.m == nil {
		a.m = &results.SizeMix{Classes: map[int64]int64{}, Law: c.Sizes.Law, Protocols: map[string]results.ProtocolShare{}}
	}
	for k, n := range c.Sizes.Classes {
		a.m.Classes[k] += n
	}
	for name, p := range c.Sizes.Protocols {
		s := a.m.Protocols[name]
		s.Count, s.Bytes = s.Count+p.Count, s.Bytes+p.Bytes
		a.m.Protocols[name] = s
	}
	return nil
}

func (a *mixAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	if a.m != nil {
		a.m.SetShares()
	}
	c.Sizes = a.m.Clone()
	return nil, nil
}
