package results

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// rxeIdle is every counter rxe has, none of which grew.
func rxeIdle() map[string]uint64 {
	m := map[string]uint64{}
	for _, n := range []string{"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
		"send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
		"completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"} {
		m[n] = 0
	}
	return m
}

// A cell whose device sent RNR NAKs is flagged, naming the counters with
// their counts, the load, and the fix with the flags that apply it.
func TestRNRRetransmitRNR(t *testing.T) {
	c := Cell{Load: CellLoad{Mode: "closed", Connections: 4, Depth: 16}, HWCounters: rxeIdle()}
	c.HWCounters["sent_pkts"], c.HWCounters["rdma_sends"] = 90000, 45000 // traffic is no sign of trouble
	c.HWCounters["send_rnr_err"], c.HWCounters["rcvd_rnr_err"], c.HWCounters["duplicate_request"] = 120, 118, 3
	w, ok := RNRRetransmit(c)
	if !ok || w.Kind != WarnRNRRetransmit {
		t.Fatalf("not flagged: %+v", w)
	}
	for _, want := range []string{"RNR NAKs and retransmissions on the RDMA device: send_rnr_err 120, rcvd_rnr_err 118, duplicate_request 3",
		"4 connections × depth 16 = 64 requests in flight", "fewer receives than its clients had sends in flight",
		"kvserver --recv-depth", "load.depth", "load.connections", "--depth", "--connections"} {
		if !strings.Contains(w.Message, want) {
			t.Errorf("message %q lacks %q", w.Message, want)
		}
	}
	if strings.Contains(w.Message, "sent_pkts") {
		t.Errorf("message %q names a counter of plain traffic", w.Message)
	}
	if got := kinds(Cell{Warnings: CellWarnings(c, time.Time{}, nil)}); !slices.Contains(got, WarnRNRRetransmit) {
		t.Errorf("CellWarnings gave %v", got)
	}
}

// mlx5's names count too; retransmissions alone blame loss, not receives.
func TestRNRRetransmitMlx5(t *testing.T) {
	rnr := Cell{HWCounters: map[string]uint64{"rnr_nak_retry_err": 2, "out_of_buffer": 5, "rx_write_requests": 1e6}}
	if w, ok := RNRRetransmit(rnr); !ok || !strings.HasPrefix(w.Message, "RNR NAKs on the RDMA device: rnr_nak_retry_err 2, out_of_buffer 5:") ||
		!strings.Contains(w.Message, "--recv-depth") {
		t.Errorf("mlx5 RNR: %v %q", ok, w.Message)
	}
	lost := Cell{HWCounters: map[string]uint64{"local_ack_timeout_err": 7, "packet_seq_err": 1, "rnr_nak_retry_err": 0}}
	w, ok := RNRRetransmit(lost)
	if !ok || !strings.HasPrefix(w.Message, "retransmissions on the RDMA device: local_ack_timeout_err 7, packet_seq_err 1:") ||
		!strings.Contains(w.Message, "lost") || strings.Contains(w.Message, "--recv-depth") {
		t.Errorf("mlx5 retransmissions: %v %q", ok, w.Message)
	}
}

// Retransmissions alone count only when a measured operation took as
// long as a resend waits: a cell whose slowest operation took 8 ms saw
// resends of other traffic on the device. RNR NAKs count whatever the
// latency: their timer is 0.64 ms.
func TestRNRRetransmitNotTheCells(t *testing.T) {
	resent := map[string]uint64{"completer_retry_err": 1, "duplicate_request": 1}
	fast := Cell{Latency: Latency{Max: int64(8 * time.Millisecond)}, HWCounters: resent}
	if w, ok := RNRRetransmit(fast); ok {
		t.Errorf("resends with no operation near 0.5 s flagged: %q", w.Message)
	}
	slow := Cell{Latency: Latency{Max: int64(600 * time.Millisecond)}, HWCounters: resent}
	if _, ok := RNRRetransmit(slow); !ok {
		t.Error("resends with an operation of 600 ms not flagged")
	}
	rnr := Cell{Latency: Latency{Max: int64(2 * time.Millisecond)}, HWCounters: map[string]uint64{"send_rnr_err": 3}}
	if _, ok := RNRRetransmit(rnr); !ok {
		t.Error("RNR NAKs in a fast cell not flagged")
	}
}

// Zero deltas, no counters (tcp), or growth only in counters of plain
// traffic: no warning.
func TestRNRRetransmitQuiet(t *testing.T) {
	busy := rxeIdle()
	busy["sent_pkts"], busy["rcvd_pkts"], busy["ack_deferred"] = 5000, 5000, 12
	for name, m := range map[string]map[string]uint64{"idle": rxeIdle(), "none": nil, "empty": {}, "traffic": busy} {
		c := Cell{Load: CellLoad{Mode: "closed", Connections: 1, Depth: 1}, HWCounters: m}
		if w, ok := RNRRetransmit(c); ok {
			t.Errorf("%s: flagged %+v", name, w)
		}
	}
}

// A cell's counters survive results.json, and a cell without them writes
// no hw_counters field; AddWarnings, which merge and rewrite go through,
// judges them.
func TestHWCountersRoundTrip(t *testing.T) {
	r := sampleRun(t, "")
	with := r.Cells[0]
	with.HWCounters = rxeIdle()
	with.HWCounters["rcvd_rnr_err"] = 1
	with.HWCounters["sent_pkts"] = 1<<64 - 1
	r.Cells = append(r.Cells, with)
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cells[0].HWCounters != nil || strings.Count(string(b), `"hw_counters":`) != 1 {
		t.Errorf("a cell without counters: %v, %d hw_counters fields written", got.Cells[0].HWCounters, strings.Count(string(b), `"hw_counters":`))
	}
	if !maps.Equal(got.Cells[1].HWCounters, with.HWCounters) {
		t.Errorf("read back %v, wrote %v", got.Cells[1].HWCounters, with.HWCounters)
	}
	dir, err := WriteRun(t.TempDir(), "rnr", got, []CellLog{{Cell: got.Cells[0]}, {Cell: got.Cells[1]}}, cellWarnings)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(saved.Cells[0]); slices.Contains(k, WarnRNRRetransmit) {
		t.Errorf("the cell without counters warns %v", k)
	}
	if k := kinds(saved.Cells[1]); !slices.Contains(k, WarnRNRRetransmit) {
		t.Errorf("the cell with an RNR NAK warns %v", k)
	}
	sum, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sum), "RNR NAKs on the RDMA device: rcvd_rnr_err 1") {
		t.Errorf("summary.txt does not list the warning:\n%s", sum)
	}
}

// Counters that cannot be a delta are refused.
func TestDecodeRejectsBadHWCounters(t *testing.T) {
	for _, hw := range []string{`{"send_rnr_err": -1}`, `{"send_rnr_err": 1.5}`, `["send_rnr_err"]`} {
		doc := `{"schema_version": 1, "cells": [{"op": "get", "count": 1, "hw_counters": ` + hw + `}]}`
		if _, err := Decode([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", hw)
		}
	}
}
