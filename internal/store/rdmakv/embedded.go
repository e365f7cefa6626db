package rdmakvstore

import (
	"fmt"
	"log/slog"
	"math/bits"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// EmbeddedConfig sizes an in-process server for a run.
type EmbeddedConfig struct {
	// Transport is "tcp", "verbs" or "auto" (verbs if a device is usable,
	// else tcp).
	Transport string
	// Poll is the workload's target.poll; the server polls as the clients
	// do (pollMode), busy with EmbeddedBusyIdle.
	Poll string
	// TOS is the server's IP type of service (rdmakv.ServerConfig.TOS).
	TOS int
	// Keys and KeySize are the key space; MaxValue the largest value size.
	Keys     int
	KeySize  int
	MaxValue int
	// MaxThreshold is the largest eager threshold the run dials with.
	MaxThreshold int
	// Workers is connections x depth, the most requests in flight.
	Workers int
	// MemLimit caps the memory the server may register (pool plus receive
	// buffers); 0 means half of this machine's memory.
	MemLimit uint64
	// AuthSecret makes the server require it of clients (nil: none).
	AuthSecret []byte
	// Logger receives what auto chose and the server's connection faults;
	// nil discards.
	Logger *slog.Logger
}

// Embedded is a server running inside kvbench on a local address; its Info
// says which transport and polling mode it uses.
type Embedded struct {
	*rdmakv.Server
	Config rdmakv.ServerConfig
}

func pow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// Plan computes the server configuration: the pool holds every key at the
// largest value size (rounded up to a power of two, as the pool's buddy
// allocator does), plus one in-flight rendezvous value per worker, plus a
// quarter for fragmentation; receive buffers are sized for the largest
// threshold. It fails if that exceeds the memory limit.
func (c EmbeddedConfig) Plan(memTotal uint64) (rdmakv.ServerConfig, error) {
	entry := pow2(int64(max(c.MaxValue, 1)))
	pool := int64(c.Keys)*entry + int64(c.Workers+1)*entry
	pool += pool / 4
	pool = max(pool, 1<<20)
	pool = (pool + 63) &^ 63
	recvDepth := min(max(64, 2*c.Workers), 1<<16)
	maxEager := max(c.MaxThreshold, 4096)
	need := uint64(pool) + uint64(recvDepth)*uint64(maxEager)
	limit := c.MemLimit
	if limit == 0 {
		limit = memTotal / 2
	}
	if limit > 0 && need > limit {
		return rdmakv.ServerConfig{}, fmt.Errorf(
			"embedded server would need %d MiB (%d keys of up to %d bytes, %d receive buffers of %d bytes), above the %d MiB limit (half this machine's memory): reduce keys.count or the largest value size, or give target.server",
			need>>20, c.Keys, c.MaxValue, recvDepth, maxEager, limit>>20)
	}
	poll, idle := pollMode(c.Poll), time.Duration(0)
	if poll == rdmakv.PollBusy {
		idle = EmbeddedBusyIdle
	}
	return rdmakv.ServerConfig{
		Local:     true,
		Transport: c.Transport,
		Poll:      poll,
		BusyIdle:  idle,
		PoolSize:  pool,
		MaxEager:  maxEager,
		MaxKey:    max(c.KeySize, 1),
		MaxValue:  int64(max(c.MaxValue, 1)),
		RecvDepth: recvDepth,
		Logger:    c.Logger,

		AuthSecret: c.AuthSecret,
		TOS:        c.TOS,
	}, nil
}

// StartEmbedded starts a server for the run, memTotal being this machine's
// memory in bytes (0 if unknown: no limit). It listens on a local address
// that routes over the transport (rdmakv.ServerConfig.Local); with "auto",
// rdmakv settles the transport and says which on the logger.
func StartEmbedded(c EmbeddedConfig, memTotal uint64) (*Embedded, error) {
	cfg, err := c.Plan(memTotal)
	if err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := rdmakv.Listen(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	return &Embedded{Server: s, Config: cfg}, nil
}
