package bench_test

import (
	"errors"
	"testing"

	"github.com/kvbench/kvbench/internal/bench/benchtest"
)

// Each cell records what the store registers to receive at its threshold:
// the server's for every rank's connections, the clients' for this
// rank's; a store that cannot say records none.
func TestReceiveMemoryPerCell(t *testing.T) {
	cfg := baseConfig(&benchtest.Fake{})
	cfg.Thresholds = []int{1024, 4096}
	cfg.Rank, cfg.Ranks = 1, 3
	cfg.ReceiveMemory = func(threshold, keySize, connections, depth int) (int64, int64, error) {
		if keySize != cfg.Keys.Size || depth != cfg.Load.Depth {
			t.Errorf("asked for keys of %d B at depth %d", keySize, depth)
		}
		// The threshold a connection on the server, a hundredth of it on a client.
		return int64(connections * threshold), int64(connections * threshold / 100), nil
	}
	rep := run(t, cfg)
	for _, m := range rep.Measurements {
		rm := m.ReceiveMemory
		if rm == nil {
			t.Errorf("t=%d %v %v: no receive memory", m.Threshold, m.Op, m.Protocol)
			continue
		}
		if want := int64(3 * cfg.Load.Connections * m.Threshold); rm.Server != want {
			t.Errorf("t=%d: server %d, want %d for the 3 ranks' connections", m.Threshold, rm.Server, want)
		}
		if want := int64(cfg.Load.Connections * m.Threshold / 100); rm.Client != want {
			t.Errorf("t=%d: clients %d, want %d for this rank's", m.Threshold, rm.Client, want)
		}
		c, err := m.Cell()
		if err != nil || c.ReceiveMemory == nil || *c.ReceiveMemory != *rm || c.ReceiveMemory == rm {
			t.Errorf("t=%d: cell's receive memory %v (%v), want a copy of %v", m.Threshold, c.ReceiveMemory, err, *rm)
		}
	}
	cfg.ReceiveMemory = func(int, int, int, int) (int64, int64, error) { return 0, 0, errors.New("no verbs") }
	for _, m := range run(t, cfg).Measurements {
		if m.ReceiveMemory != nil {
			t.Errorf("t=%d: receive memory %v from a store that cannot say", m.Threshold, *m.ReceiveMemory)
		}
	}
}
