package figure

import (
	"image/color"

	"github.com/kvbench/kvbench/internal/results"
)

// Plot is a kind of figure plot draws of a cell figure, per op: Lines or
// Bars.
type Plot interface{ kind() }

// Lines draw the figure against value size, both axes logarithmic: a line
// per protocol (its colour) and series. Where several thresholds ran one
// protocol at one size, the lowest threshold's cell is taken: the
// protocol decides the path an operation takes.
type Lines struct {
	// Title is what the y axis shows ("CPU time per operation").
	Title  string
	Series []Series
}

// Series is one line per protocol.
type Series struct {
	Name string
	// Dashed draws the line dashed (solid otherwise).
	Dashed bool
	// Value is the cell's point; ok false where the cell has none.
	Value func(results.Cell) (v float64, ok bool)
}

// Bars stack the figure's parts per value size, a bar for eager beside
// one for rendezvous.
type Bars struct {
	// Title follows the op in the figure's title; YLabel is the y axis's.
	Title, YLabel string
	// Parts are the cell's parts in the figure's unit, by name.
	Parts func(results.Cell) map[string]float64
	// Order is the parts' order, bottom to top (others follow, sorted).
	Order []string
	// Colors colour the parts in every figure (others are grey).
	Colors map[string]color.Color
}

func (Lines) kind() {}
func (Bars) kind()  {}

// Steps draw the figure over the measure phase, per op: on top a step
// line per cell of Level, on a log2 axis in the figure's unit, and
// beneath, the cell's Shares, each from 0 to 1. Interval i of the cell's
// IntervalNs is a flat step at its value; the last is cut short by the
// phase's end. The op's eager and rendezvous cells of one value size are
// drawn once.
type Steps struct {
	// Title is the top panel's y axis; SharesTitle the bottom one's.
	Title, SharesTitle string
	// Level is the cell's value per interval, and the intervals' length.
	Level func(results.Cell) (values []float64, intervalNs int64)
	// Shares are the cell's named shares per interval, NaN where an
	// interval has none.
	Shares func(results.Cell) []Share
}

// Share is one named line of a Steps figure's bottom panel.
type Share struct {
	Name   string
	Values []float64
}

func (Steps) kind() {}
