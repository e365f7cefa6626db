package report

import (
	"io"
	"strconv"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// StepRow is one step of a ramped open-loop cell (results.StepCells):
// Step counts from 1, RateOps is the rate the ramp held in it.
type StepRow struct {
	Step    int     `json:"step"`
	RateOps float64 `json:"rate_ops"`
	Row
}

// Steps splits every ramped cell of run, recorded in directory dir, by the
// steps of its ramp, step by step, the cells in run order within a step
// and, for a mixed run, each threshold's whole workload after them (op
// and protocol "all"), so that one rate's thresholds sit together.
func Steps(run *results.Run, dir string) ([]StepRow, error) {
	steps, err := results.RampSteps(dir, sorted(run))
	if err != nil {
		return nil, err
	}
	var out []StepRow
	for k, cells := range steps {
		for _, r := range rowsOf(cells) {
			out = append(out, StepRow{Step: k + 1, RateOps: r.cell.Load.RateOps, Row: r})
		}
	}
	return out, nil
}

var stepColumns = []string{"step", "rate", "op", "value", "threshold", "protocol", "count", "ops/s", "p50", "p90", "p99", "p99.9", "max"}

func stepHuman(r StepRow) []string {
	return []string{strconv.Itoa(r.Step), units.Rate(r.RateOps), r.Op, units.Bytes(int64(r.ValueSize)),
		thresholdText(r.Threshold, r.Store, r.Policy), results.ProtocolLabel(r.Store, r.Protocol),
		strconv.FormatInt(r.Count, 10), units.Rate(r.OpsPerSec),
		units.Duration(float64(r.P50)), units.Duration(float64(r.P90)), units.Duration(float64(r.P99)),
		units.Duration(float64(r.P999)), units.Duration(float64(r.Max))}
}

// stepsView prints StepRows.
var stepsView = view[StepRow]{
	title: "cells by step of the ramp",
	empty: "no cell ran a ramp (load.ramp)", columns: stepColumns, human: stepHuman,
	cell: func(r StepRow) (results.Cell, bool) { return r.cell, true },
	head: []string{"step", "rate_ops", "op", "value_size", "threshold", "policy", "protocol", "store", "count",
		"throughput_ops", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"},
	raw: func(r StepRow) []string {
		return []string{strconv.Itoa(r.Step), strconv.FormatFloat(r.RateOps, 'f', -1, 64), r.Op,
			strconv.Itoa(r.ValueSize), thresholdField(r.Threshold, r.Store), r.Policy, r.Protocol, r.Store,
			strconv.FormatInt(r.Count, 10), strconv.FormatFloat(r.OpsPerSec, 'f', -1, 64),
			strconv.FormatInt(r.P50, 10), strconv.FormatInt(r.P90, 10), strconv.FormatInt(r.P99, 10),
			strconv.FormatInt(r.P999, 10), strconv.FormatInt(r.Max, 10)}
	},
}

// WriteSteps prints Steps(run, dir) in format (table, markdown, csv or
// json); a run without a ramp says so.
func WriteSteps(w io.Writer, run *results.Run, dir, format string) error {
	rows, err := Steps(run, dir)
	if err != nil {
		return err
	}
	return stepsView.write(w, rows, format)
}
