// Package store is what kvbench's engine asks of a store it drives, and
// the registry of the stores: each is a driver package under
// internal/store (rdmakv, Redis, memcached) that registers its kind as it
// is linked in (the CLI imports them). The engine holds one Store and
// drives every kind alike; what only some stores can tell (their
// server's CPU, the link under their connections, an in-process server)
// are optional interfaces it asks for. Workloads, flags and results take
// the list of kinds from here, so a new store is one package and one
// import.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/rdmakv"
)

// Rdmakv is the store kvbench was built for: the kind of a workload that
// names none, listed first. Its driver registers it like any other.
const Rdmakv = results.KindRdmakv

// Protocol is how an operation moved its value (rdmakv's); a store
// without an eager threshold moves every value Eager, in a request and
// its reply.
type Protocol = rdmakv.Protocol

// Unknown is an operation whose protocol the target could not tell (it
// failed before choosing one); Eager is one message each way.
const (
	Unknown Protocol = 0
	Eager            = rdmakv.Eager
)

// Target is one connection to the store under test. Methods may be called
// concurrently by the workers sharing the connection (depth > 1). Each
// returns the protocol the operation used, also on error when known.
type Target interface {
	Set(ctx context.Context, key, value []byte) (Protocol, error)
	// Get calls view with the value, which is valid only during the call
	// (zero-copy targets release it afterwards). view is not called when
	// the get fails. view may be nil.
	Get(ctx context.Context, key []byte, view func(value []byte)) (Protocol, error)
	Delete(ctx context.Context, key []byte) (Protocol, error)
}

// Conn is a Target that owns a connection.
type Conn interface {
	Target
	Close() error
}

// Dialer opens connections; the eager threshold is a connection option, so
// each threshold of a sweep gets a fresh set (a store without one ignores
// it).
type Dialer interface {
	Dial(ctx context.Context, threshold int) (Conn, error)
}

// Errors a Target returns (possibly wrapped) so that the harness can count
// them by kind. Anything else counts as "other".
var (
	ErrTimeout  = errors.New("timeout")
	ErrNotFound = errors.New("not found")
	ErrNoSpace  = errors.New("no space")
	ErrClosed   = errors.New("connection closed")
)

// ErrUnreachable wraps what Check returns when it could not reach the
// server to ask it anything: nothing is known of what it can store, and
// a rank of an MPI job leaves the failure to the run, where every rank
// learns of it.
var ErrUnreachable = errors.New("server unreachable")

// Store is one server a run drives with a workload: rdmakv's, or another
// store's, so that rdmakv's figures stand beside ones a reader knows.
type Store interface {
	// Dialer opens the measured connections.
	Dialer
	// Kind is the store's kind, as registered.
	Kind() string
	// Addr is the server's host:port.
	Addr() string
	// Version is the server's version as it reports it; "" for a store
	// whose results carry a protocol version instead (ProtocolVersioner).
	Version(ctx context.Context) (string, error)
	// Check refuses, in one error naming each, the cells the server
	// cannot run; an error wrapping ErrUnreachable when it could not ask.
	Check(ctx context.Context, cells Cells) error
	// Close closes the control connection and stops a server the store
	// started.
	Close() error
}

// Optional interfaces of a Store, which the engine asks for with a type
// assertion; a store without one has the answer given.

// CPUReporter is a store whose server reports its CPU time (without:
// the server's CPU is not measured).
type CPUReporter interface {
	// CPU is the server process's CPU time so far.
	CPU(ctx context.Context) (user, sys time.Duration, err error)
}

// Embedder is a store that may run its server inside this process
// (rdmakv's embedded server; without: never). Such a server starts empty,
// and its CPU time is the process's, not to be told apart.
type Embedder interface {
	Embedded() bool
}

// LinkDescriber is a store that knows more of its link than that it is
// TCP to Addr (without: tcp): it fills in results.json's transport
// section, whose Server and ClientSockets the engine sets. A Device in
// it names the RDMA device whose hardware counters a run reads.
type LinkDescriber interface {
	DescribeLink(t *results.Transport)
}

// ProtocolVersioner is a store whose client speaks a versioned protocol of
// kvbench's (rdmakv's wire protocol; without: none, 0), recorded with
// its results.
type ProtocolVersioner interface {
	ProtocolVersion() int
}

// CreditWaiter is a Conn that counts the times a message of its waited
// for the server's credit (rdmakv: Client.CreditWaits): the server held
// fewer receives for it than it had requests to send, so the wait is in
// the cell's latencies.
type CreditWaiter interface {
	CreditWaits() uint64
}

// AdaptiveReporter is a Conn whose client chooses each request's
// protocol itself (AdaptiveThreshold; rdmakv.Client.AdaptiveState): per
// operation and size class, its choice and the requests each protocol has
// carried since it was dialled. A Conn dialled at a fixed threshold
// returns nil.
type AdaptiveReporter interface {
	AdaptiveState() []rdmakv.AdaptiveClass
}

// ReceiveMemoryReporter is a store that registers memory to receive into
// (rdmakv over verbs; without: none recorded): what its server registers
// for connections clients of depth requests in flight on keys of up to
// keySize bytes at an eager threshold, and what those clients register
// together. An error (a build without verbs) records none.
type ReceiveMemoryReporter interface {
	ReceiveMemory(threshold, keySize, connections, depth int) (server, client int64, err error)
}

// Cells are what a run will ask of the server: keys.count keys of KeySize
// bytes, values of each of ValueSizes, at each eager threshold of
// Thresholds (none: a store without one, or a tune, which places its
// own), Depth requests in flight per connection, and whether the keys are
// preloaded (all of them held at once).
type Cells struct {
	Keys       int
	KeySize    int
	ValueSizes []int
	Thresholds []int
	Depth      int
	Preload    bool
	// Distribution, for a run whose values' sizes are drawn from a law
	// (values.distribution), is the law as the workload gives it:
	// ValueSizes then holds the law's largest size alone, and MeanValue
	// is its mean, by which the preload's need is reckoned.
	Distribution string
	MeanValue    float64
	// KeyDistribution, for a run whose keys' sizes are drawn from a law
	// (keys.size given as a distribution), is the law as the workload
	// gives it; KeySize is then its longest key.
	KeyDistribution string
}

// AdaptiveThreshold, given to a Dialer as the threshold, asks for
// connections whose clients choose each request's protocol themselves
// (rdmakv.WithAdaptiveThreshold): the workload's "adaptive" threshold.
const AdaptiveThreshold = results.AdaptiveThreshold

// Config is how to reach a store's server, or start one, and drive its
// connections: the workload's target, key space and load.
type Config struct {
	Kind string
	// Addr is the server's host:port; empty asks the driver to start one
	// in this process (rdmakv's embedded server), which a driver that
	// cannot refuses.
	Addr string
	// Timeout bounds each request and each dial (0: 5 s).
	Timeout time.Duration
	// Depth is the requests in flight per connection.
	Depth int
	// Connections is the measured connections the process opens (0: 1).
	Connections int
	// AuthFile holds the server's password or shared secret (empty:
	// none); only a kind with Kind.Password takes one.
	AuthFile string
	// Transport, Poll and TOS are the workload's target.transport,
	// target.poll and target.tos, which only rdmakv has (validation
	// refuses them for the others).
	Transport string
	Poll      string
	TOS       int
	// OpPhases has the connections time each request's phases where the
	// store can (OpPhasesFrom).
	OpPhases bool
	// Adaptive, rdmakv's only, is the adaptive policy's settings (the
	// workload's adaptive block) for the connections dialed at
	// AdaptiveThreshold; zero fields take rdmakv's defaults.
	Adaptive rdmakv.AdaptiveConfig
	// AdaptivePerConnection gives each adaptive connection a policy of
	// its own; by default the connections a Dialer has open at once share
	// one (rdmakv.AdaptiveGroup).
	AdaptivePerConnection bool
	// Profile, rdmakv's only, names a threshold profile (target.profile)
	// that the connections apply in place of the threshold they are
	// dialed at: a threshold per op at Connections x Depth in flight.
	Profile string
	// Keys and KeySize are the key space, MaxValue the largest value and
	// MaxThreshold the largest eager threshold: what a server the driver
	// starts, and each connection's buffers, are sized for.
	Keys, KeySize          int
	MaxValue, MaxThreshold int
	// Sizes, when the run draws its values' sizes (values.distribution),
	// is the law they follow, MaxValue its largest size: a server the
	// driver starts holds the keys at the sizes it draws, not all at the
	// largest.
	Sizes sizegen.Distribution
	// MemBytes is this machine's memory (0: unknown), which bounds a
	// server the driver starts.
	MemBytes uint64
	// Logger receives the driver's notices (a transport chosen,
	// connection faults); nil discards them.
	Logger *slog.Logger
}

// Kind is a registered store: its name, what a workload may ask of it,
// and how to open it.
type Kind struct {
	Name string
	// MaxKey is the longest key the store takes (0: no limit known ahead;
	// the server's Check says).
	MaxKey int
	// Password: target.auth_file holds the server's password; without it
	// the store has no authentication and a workload must not give one
	// (rdmakv validates its own shared secret).
	Password bool
	// Open connects to the server at cfg.Addr (or starts one), which also
	// proves the server is there and speaks the kind's protocol.
	Open func(ctx context.Context, cfg Config) (Store, error)
}

var (
	mu    sync.RWMutex
	kinds = map[string]Kind{}
)

// Register adds a kind; a name registered twice is a programming error.
func Register(k Kind) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[k.Name]; dup || k.Name == "" || k.Open == nil {
		panic(fmt.Sprintf("store: kind %q registered twice or without Open", k.Name))
	}
	kinds[k.Name] = k
}

// Kinds are the registered kinds: rdmakv first, the default, then the
// others in order.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(kinds))
	for name := range kinds {
		out = append(out, name)
	}
	slices.SortFunc(out, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == Rdmakv:
			return -1
		case b == Rdmakv:
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// Lookup is the kind of that name.
func Lookup(name string) (Kind, bool) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Open opens the store cfg names through its kind's driver.
func Open(ctx context.Context, cfg Config) (Store, error) {
	k, ok := Lookup(cfg.Kind)
	if !ok {
		return nil, fmt.Errorf("target.kind %q is not a kind of store (kinds: %s)", cfg.Kind, strings.Join(Kinds(), ", "))
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	cfg.Depth = max(cfg.Depth, 1)
	cfg.Connections = max(cfg.Connections, 1)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return k.Open(ctx, cfg)
}
