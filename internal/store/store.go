// Package store is what kvbench's engine asks of a store it drives, and
// the registry of the stores: rdmakv, which the engine drives itself, and
// the baselines (Redis, memcached), each a driver package under
// internal/store that registers its kind as it is linked in (the CLI
// imports them). Workloads, flags and results take the list of kinds from
// here, so a new store is one package and one import.
package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// Rdmakv is the store kvbench was built for, always known.
const Rdmakv = "rdmakv"

// Protocol is how an operation moved its value (rdmakv's); a baseline's
// operations are all Eager, a request and its reply.
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
// each threshold of a sweep gets a fresh set (a baseline ignores it).
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

// Baseline is a store other than rdmakv that a run drives with the same
// workload, so that rdmakv's figures stand beside ones a reader knows. It
// has no eager threshold; each operation is one request and its reply,
// carrying the value inline.
type Baseline interface {
	// Dialer opens the measured connections; the threshold is ignored.
	Dialer
	// Kind is the store's kind, as registered.
	Kind() string
	// Addr is the server's host:port.
	Addr() string
	// Version is the server's version as it reports it.
	Version(ctx context.Context) (string, error)
	// CPU is the server process's CPU time so far, as it reports it.
	CPU(ctx context.Context) (user, sys time.Duration, err error)
	// Check refuses, in one error naming each, the cells the server
	// cannot store.
	Check(ctx context.Context, cells Cells) error
	// Close closes the control connection.
	Close() error
}

// Cells are what a run will store: keys of KeySize bytes and values of
// each of ValueSizes.
type Cells struct {
	KeySize    int
	ValueSizes []int
}

// Config is how to reach a baseline and drive its connections.
type Config struct {
	Kind string
	Addr string
	// Timeout bounds each request and each dial (0: 5 s).
	Timeout time.Duration
	// Depth is the requests in flight per connection.
	Depth int
	// Connections is the measured connections the process opens (0: 1).
	Connections int
	// Password is the server's password (empty: none); only a kind with
	// Kind.Password takes one.
	Password string
}

// Kind is a registered baseline: its name, what a workload may ask of it,
// and how to open it.
type Kind struct {
	Name string
	// MaxKey is the longest key the store takes (0: rdmakv's limit).
	MaxKey int
	// Password: target.auth_file holds the server's password; without it
	// the store has no authentication and a workload must not give one.
	Password bool
	// Open connects a control connection to the server at cfg.Addr, which
	// also proves the server is there and speaks the kind's protocol.
	Open func(ctx context.Context, cfg Config) (Baseline, error)
}

var (
	mu    sync.RWMutex
	kinds = map[string]Kind{}
)

// Register adds a baseline kind; a name registered twice is a programming
// error.
func Register(k Kind) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[k.Name]; dup || k.Name == Rdmakv || k.Open == nil {
		panic(fmt.Sprintf("store: kind %q registered twice or without Open", k.Name))
	}
	kinds[k.Name] = k
}

// Kinds are the known kinds, rdmakv first, then the baselines in order.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(kinds)+1)
	for name := range kinds {
		out = append(out, name)
	}
	slices.Sort(out)
	return append([]string{Rdmakv}, out...)
}

// Lookup is the baseline kind of that name.
func Lookup(name string) (Kind, bool) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := kinds[name]
	return k, ok
}

// Open connects to the baseline cfg names.
func Open(ctx context.Context, cfg Config) (Baseline, error) {
	k, ok := Lookup(cfg.Kind)
	if !ok {
		return nil, fmt.Errorf("target.kind %q is not a baseline (baselines: %s)", cfg.Kind, strings.Join(Kinds()[1:], ", "))
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	cfg.Depth = max(cfg.Depth, 1)
	cfg.Connections = max(cfg.Connections, 1)
	return k.Open(ctx, cfg)
}
