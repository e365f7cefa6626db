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
