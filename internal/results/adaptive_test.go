package results

import (
	"reflect"
	"strings"
	"testing"
)

func sampleTimeline() *AdaptiveTimeline {
	return &AdaptiveTimeline{IntervalNs: 1e9, StartThreshold: 4096, Thresholds: []int64{4096, 16384, 16384},
		Classes: []AdaptiveClass{
			{Lower: 2048, Upper: 4096, Eager: []uint64{10, 9, 8}, Rendezvous: []uint64{0, 1, 2}},
			{Lower: 8192, Upper: 16384, Eager: []uint64{1, 30, 31}, Rendezvous: []uint64{40, 2, 1}, Switches: 1},
			{Lower: 65536, Rendezvous: []uint64{5, 5, 5}, Eager: []uint64{0, 0, 0}},
		}}
}

// An adaptive cell's timeline survives results.json; one recorded
// before timelines were loads without one; counts that do not cover the
// thresholds' intervals are refused.
func TestAdaptiveTimelineRoundTrip(t *testing.T) {
	const adaptiveCell = `{"schema_version": 1, "cells": [{"op": "set", "value_size": 64, "threshold": -1, "policy": "adaptive",
		"protocol": "eager", "count": 3, "errors": {}, "latency_ns": {}, "load": {"mode": "closed", "connections": 1}%s}]}`
	old, err := Decode([]byte(strings.Replace(adaptiveCell, "%s", "", 1)))
	if err != nil || old.Cells[0].Adaptive != nil {
		t.Fatalf("an adaptive cell without a timeline: %v, %+v", err, old.Cells[0].Adaptive)
	}
	old.Cells[0].Adaptive = sampleTimeline()
	b, err := old.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Cells[0].Adaptive; !reflect.DeepEqual(got, sampleTimeline()) {
		t.Errorf("round trip gave %+v, want %+v", got, sampleTimeline())
	}
	bad := strings.Replace(adaptiveCell, "%s", `, "adaptive": {"interval_ns": 1000000000, "thresholds": [4096, 4096],
		"classes": [{"lower": 1, "upper": 2, "eager": [1], "rendezvous": [0, 0]}]}`, 1)
	if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "adaptive class 1") {
		t.Errorf("a class of 1 eager count over 2 intervals: %v, want refused", err)
	}
}

// Changes counts the threshold's moves from its start; the end is the
// last interval's, or the start without intervals.
func TestAdaptiveTimelineChanges(t *testing.T) {
	tl := sampleTimeline()
	if tl.Changes() != 1 || tl.EndThreshold() != 16384 {
		t.Errorf("changes %d, end %d; want 1, 16384", tl.Changes(), tl.EndThreshold())
	}
	tl.StartThreshold = 1024
	if tl.Changes() != 2 {
		t.Errorf("from 1024: %d changes, want 2", tl.Changes())
	}
	if e := (&AdaptiveTimeline{StartThreshold: 512}).EndThreshold(); e != 512 {
		t.Errorf("without intervals the end is %d, want the start 512", e)
	}
	c := tl.Clone()
	c.Classes[0].Eager[0], c.Thresholds[0] = 99, 99
	if tl.Classes[0].Eager[0] == 99 || tl.Thresholds[0] == 99 {
		t.Error("Clone shares its slices")
	}
}
