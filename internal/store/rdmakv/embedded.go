package rdmakvstore

import (
	"fmt"
	"log/slog"
	"math"
	"math/bits"
	"time"

	"github.com/kvbench/kvbench/internal/sizegen"
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
	// Sizes, when the values' sizes are drawn from a law, is that law
	// (MaxValue its largest): the pool is then sized for keys of the
	// sizes it draws (Plan).
	Sizes sizegen.Distribution
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
// threshold. Values whose sizes follow a law (Sizes) are held at the
// sizes it draws instead, where that is less (keysRoom). It fails if that
// exceeds the memory limit.
func (c EmbeddedConfig) Plan(memTotal uint64) (rdmakv.ServerConfig, error) {
	entry := pow2(int64(max(c.MaxValue, 1)))
	pool := c.keysRoom(entry) + int64(c.Workers+1)*entry
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

// keysRoom is the pool the keys need, entry being the block of the
// largest value: all of them at entry, or for values whose sizes follow
// Sizes, twice the blocks they take on average, with six standard
// deviations of their sum to spare (the keys hold independent draws, so
// the sum strays little from its mean), if that is less. The doubling is
// for the fragmentation a buddy allocator suffers from blocks of many
// sizes, which may leave no free block as large as a value although
// their sum would hold it.
func (c EmbeddedConfig) keysRoom(entry int64) int64 {
	all := int64(c.Keys) * entry
	if c.Sizes == nil {
		return all
	}
	mean, sd := blockMoments(c.Sizes)
	need := 2 * (float64(c.Keys)*mean + 6*sd*math.Sqrt(float64(c.Keys)))
	if need >= float64(all) {
		return all
	}
	return int64(math.Ceil(need))
}

// blockMoments are the mean and standard deviation of the pool block a
// value of law d takes: its size rounded up to a power of two, at least
// the pool's smallest block of 64 bytes.
func blockMoments(d sizegen.Distribution) (mean, sd float64) {
	var m2, below float64
	for b := int64(64); ; b *= 2 {
		p := d.CDF(int(b)) - below
		below += p
		mean += p * float64(b)
		m2 += p * float64(b) * float64(b)
		if int(b) >= d.Max() || b >= 1<<62 {
			break
		}
	}
	return mean, math.Sqrt(max(m2-mean*mean, 0))
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
