package rdmakv

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// ServerStats asks the server, over this connection, for its figures: the
// CPU time its process has used so far, user and system (see
// ServerStats.CPUUser), the connections open (this one included), the
// keys stored and the value pool's use. The CPU time of some work on the
// server is the difference between a call before it and a call after it;
// each call is one request in flight, like a Get.
//
// The errors are those of any request: ErrClosed once the connection is
// gone, ErrTimeout when no reply comes within the client's timeout or
// ctx's deadline passes, ctx's error when it is cancelled, and ErrProtocol
// for a reply that is not a STATS_REPLY or holds a figure out of range.
// Test with errors.Is.
func (c *Client) ServerStats(ctx context.Context) (ServerStats, error) {
	if err := c.closedErr(); err != nil {
		return ServerStats{}, err
	}
	s, err := c.acquire(ctx)
	if err != nil {
		return ServerStats{}, err
	}
	defer c.releaseSlot(s)
	if err := c.call(s, wire.Header{Type: wire.Stats}, nil, nil); err != nil {
		return ServerStats{}, err
	}
	m, f, err := c.wait(ctx, s, wire.StatsReply)
	if err != nil {
		return ServerStats{}, err
	}
	st := f.Status
	body, err := wire.DecodeStats(f.Value) // f.Value views m: decode before release
	m.Release()
	if err := statusErr("STATS", st); err != nil {
		return ServerStats{}, err
	}
	if err != nil {
		return ServerStats{}, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	return fromStatsBody(body)
}

// fromStatsBody is a STATS_REPLY body as ServerStats. A figure its field
// cannot hold is the server's error, not a value to wrap round.
func fromStatsBody(b wire.StatsBody) (ServerStats, error) {
	for _, v := range [...]struct {
		name string
		n    uint64
		max  uint64
	}{{"cpu_user_ns", b.CPUUserNs, math.MaxInt64}, {"cpu_sys_ns", b.CPUSysNs, math.MaxInt64},
		{"conns", b.Conns, math.MaxInt}, {"keys", b.Keys, math.MaxInt},
		{"pool_used", b.PoolUsed, math.MaxInt64}, {"pool_size", b.PoolSize, math.MaxInt64}} {
		if v.n > v.max {
			return ServerStats{}, fmt.Errorf("%w: STATS_REPLY %s %d is out of range", ErrProtocol, v.name, v.n)
		}
	}
	return ServerStats{
		Conns: int(b.Conns), Keys: int(b.Keys),
		PoolUsed: int64(b.PoolUsed), PoolSize: int64(b.PoolSize),
		CPUUser: time.Duration(b.CPUUserNs), CPUSys: time.Duration(b.CPUSysNs),
	}, nil
}
