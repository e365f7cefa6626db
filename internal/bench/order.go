package bench

import (
	"fmt"
	"time"

	"github.com/kvbench/kvbench/internal/workload"
)

// run measures every cell in the order Config.Order asks for. With one
// threshold both orders run the sizes in a row on one set of connections:
// there is no other threshold for a drift to favour.
func (r *runner) run() error {
	r.newShards()
	if r.cfg.Order == workload.OrderThresholds || len(r.cfg.Thresholds) == 1 {
		return r.byThreshold()
	}
	return r.interleaved()
}

// newShards gives each worker its verify state, in verify mode.
func (r *runner) newShards() {
	if !r.cfg.Verify {
		return
	}
	W := r.cfg.Workers()
	r.shards = make([]*shard, W)
	for w := range r.shards {
		r.shards[w] = newShard(int64(r.cfg.Keys.Count), r.cfg.Rank*W+w, W*r.cfg.ranks(), r.cfg.FreshServer)
	}
}

// byThreshold runs each threshold's value sizes in a row over one set of
// connections: a handshake per threshold.
func (r *runner) byThreshold() error {
	for ti, th := range r.cfg.Thresholds {
		if r.halted() {
			return nil
		}
		err := r.onConns(th, fmt.Sprintf("threshold %d", th), func(conns []Conn) error {
			for si := range r.cfg.ValueSizes {
				if r.halted() {
					return nil
				}
				if err := r.cellAt(conns, ti, si); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// interleaved runs each value size at every threshold in turn, so that a
// host whose speed drifts over the run slows every threshold alike. The
// threshold is a connection option, so each cell dials connections of its
// own, before its phases and outside what they measure.
func (r *runner) interleaved() error {
	for si, size := range r.cfg.ValueSizes {
		for ti, th := range r.cfg.Thresholds {
			if r.halted() {
				return nil
			}
			err := r.onConns(th, fmt.Sprintf("threshold %d value size %d", th, size), func(conns []Conn) error {
				return r.cellAt(conns, ti, si)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// onConns dials the run's connections at threshold th, runs fn over them
// and closes them; what names the cells they serve in a dial error.
func (r *runner) onConns(th int, what string, fn func([]Conn) error) error {
	conns := make([]Conn, 0, r.cfg.Load.Connections)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range r.cfg.Load.Connections {
		c, err := r.cfg.Dialer.Dial(r.opCtx, th)
		if err != nil {
			return fmt.Errorf("%s: dial: %w", what, err)
		}
		conns = append(conns, c)
	}
	return fn(conns)
}

// cellAt runs the cell of threshold ti and size si over conns, then hands
// the report so far to Checkpoint.
func (r *runner) cellAt(conns []Conn, ti, si int) error {
	r.grid = ti*len(r.cfg.ValueSizes) + si
	n := len(r.rep.Measurements)
	err := r.runCell(conns, r.cfg.Thresholds[ti], r.cfg.ValueSizes[si])
	r.cell++
	if err == nil && r.cfg.Checkpoint != nil && len(r.rep.Measurements) > n {
		r.rep.End = time.Now()
		err = r.cfg.Checkpoint(r.rep)
	}
	return err
}
