package rdmakv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Option configures Dial.
type Option func(*options)

type options struct {
	// transport is one of Transports.
	transport string
	// threshold is the eager threshold: a request whose key plus value is
	// below it goes eager; 0 sends everything rendezvous. With a profile
	// it is the larger of the get and set thresholds, which HELLO asks
	// for and the receive buffers are sized by.
	threshold int
	// getThreshold and setThreshold are each op's threshold, resolved
	// once (resolveThresholds) so no request looks a profile up.
	getThreshold, setThreshold int
	// thresholdSet says WithEagerThreshold was given.
	thresholdSet bool
	// profile is WithProfile's, if given.
	profile *profileOption
	// timeout bounds each request (and the handshake).
	timeout time.Duration
	// poll is the completion polling mode.
	poll Poll
	// device names the RDMA device (verbs only).
	device string
	// depth is the most requests in flight on the connection.
	depth int
	// staging is the most registered staging memory for rendezvous
	// payloads; stagingIdle is how long unused staging stays registered.
	staging     int
	stagingIdle time.Duration
	// logger receives the auto-transport fallback warning.
	logger *slog.Logger
	// auth is the shared secret the client proves it knows, if the server
	// asks.
	auth []byte
	// trace, if set, receives every request's Trace.
	trace func(context.Context, *Trace)
	// blocking gives a TCP connection a blocking socket.
	blocking bool
	// netConn reads and writes a TCP connection through net.Conn
	// (transport.Config.NetConn).
	netConn bool
	// tos is the traffic's IP type-of-service byte (transport.Config.TOS).
	tos int
	// adaptive, if set, configures the adaptive threshold policy.
	adaptive *adaptiveOptions
}

// newOptions are the defaults with opts applied and the thresholds
// resolved.
func newOptions(opts []Option) options {
	o := defaultOptions()
	for _, f := range opts {
		f(&o)
	}
	o.resolveThresholds()
	return o
}

func defaultOptions() options {
	return options{
		transport: DefaultTransport,
		threshold: DefaultEagerThreshold,
		timeout:   DefaultTimeout,
		depth:     DefaultDepth,
		staging:   DefaultStagingSize,

		stagingIdle: stagingIdle,
	}
}

// WithTransport selects TransportTCP ("tcp", the default), TransportVerbs
// ("verbs"), or TransportAuto ("auto": verbs, falling back to tcp with one
// warning when no RDMA device is usable).
func WithTransport(name string) Option { return func(o *options) { o.transport = name } }

// WithEagerThreshold sets the eager threshold n (default 4096): a request
// whose key plus value is below n bytes travels eager, inline in one
// message; others go rendezvous. 0 sends everything rendezvous. Dial fails
// with ErrThreshold if n exceeds the server's maximum eager size.
func WithEagerThreshold(n int) Option {
	return func(o *options) { o.threshold, o.thresholdSet = n, true }
}

// WithTimeout bounds each request (default 5s); a request that runs out
// fails with ErrTimeout and the connection stays usable. While four
// replies to requests that ran out are still to come, a new request waits
// for them (up to the timeout): the client has receive buffers for only
// so many late replies beside its depth.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithPoll selects busy or event-driven completion polling. With
// PollBusy on a transport that supports it (verbs), a request
// waiting for its reply polls the completion queue itself, spinning a
// core per waiting goroutine; event mode sleeps until woken. Busy
// polling on verbs raises GOMAXPROCS to at least 2, so that the Go
// runtime leaves a poller's calls into C alone.
func WithPoll(p Poll) Option { return func(o *options) { o.poll = p } }

// WithBlockingSocket, over TCP, gives the connection a blocking socket
// that Go's poller does not watch: a request waits for its reply in the
// kernel, on its own thread, and the reply wakes that thread and no other,
// as in a synchronous C client. Through the poller the same wait costs
// more system calls and wake-ups. It suits a process with fewer
// connections than GOMAXPROCS: a P stays free for the rest of the process
// while each connection's thread waits. With as many or more, the runtime
// hands the Ps of waiting threads to others and back, which costs more
// than it saves. Blocking sockets need raw system calls: off Linux, and
// with WithNetConn, it has no effect. Verbs ignores it.
func WithBlockingSocket(on bool) Option { return func(o *options) { o.blocking = on } }

// WithNetConn, over TCP, reads and writes the connection's socket through
// the standard net.Conn instead of with raw system calls
// (transport.Config.NetConn): the path every connection takes off Linux,
// and on Linux one to compare the raw path with. WithBlockingSocket then
// has no effect. Verbs ignores it.
func WithNetConn(on bool) Option { return func(o *options) { o.netConn = on } }

// WithTOS sets the IP type-of-service byte of the connection's traffic
// (DSCP << 2 | ECN): the RoCE traffic class on verbs, which lossless
// (PFC) and ECN fabrics map to their queues, and IP_TOS on tcp. The
// default, 0, is class 0.
func WithTOS(tos int) Option { return func(o *options) { o.tos = tos } }

// WithDevice names the RDMA device (verbs only).
func WithDevice(name string) Option { return func(o *options) { o.device = name } }

// WithDepth sets how many requests may be in flight at once (default 64,
// capped by the server's limit and by 4096). More concurrent callers wait
// for a free request slot. At depth 1 over tcp the caller reads its reply
// from the socket itself, with no wake-up of the transport's reader
// goroutine, which takes about 30% off a loopback round trip. Such a
// client does not watch the socket between requests, so it learns that
// the server closed the connection from its next request (ErrClosed).
func WithDepth(n int) Option { return func(o *options) { o.depth = n } }

// WithStagingSize bounds the registered staging memory for rendezvous
// payloads (default 64 MiB). None is registered until the first rendezvous
// request; it then grows on demand in regions of 64 KiB and up, each at
// least twice the last, and a region unused for two seconds is
// deregistered, so an idle client pins none. A value that does not fit in
// what is free gets a temporary region registered for that one request
// (slower).
func WithStagingSize(bytes int) Option { return func(o *options) { o.staging = bytes } }

// WithLogger sets the logger for the auto-transport fallback warning and
// connection faults (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithAuth gives the client the server's shared secret
// (ServerConfig.AuthSecret), which it proves it knows when the server
// challenges it at Dial; the secret itself is never sent. Against a server
// without one it changes nothing. ReadSecret loads a secret from a file.
func WithAuth(secret []byte) Option { return func(o *options) { o.auth = secret } }

// Client defaults.
const (
	DefaultEagerThreshold = 4096
	DefaultDepth          = 64
	DefaultTimeout        = 5 * time.Second
	DefaultStagingSize    = 64 << 20
	// maxDepth keeps the slot index inside the 16 low bits of a request id.
	maxDepth = 4096
)

func (o *options) validate() error {
	var errs []error
	if err := CheckTransport(o.transport); err != nil {
		errs = append(errs, err)
	}
	if o.threshold < 0 || o.threshold > MaxEagerLimit {
		errs = append(errs, fmt.Errorf("%w: eager threshold %d must be between 0 and %d", ErrThreshold, o.threshold, MaxEagerLimit))
	}
	errs = append(errs, o.profile.problems(o.thresholdSet)...)
	if o.timeout <= 0 {
		errs = append(errs, fmt.Errorf("timeout %v must be positive", o.timeout))
	}
	if o.depth < 1 || o.depth > maxDepth {
		errs = append(errs, fmt.Errorf("depth %d must be between 1 and %d", o.depth, maxDepth))
	}
	if o.staging < poolMinBlock {
		errs = append(errs, fmt.Errorf("staging size %d must be at least %d", o.staging, poolMinBlock))
	}
	if o.auth != nil && len(o.auth) < MinSecretLen {
		errs = append(errs, fmt.Errorf("auth secret of %d bytes: must be at least %d", len(o.auth), MinSecretLen))
	}
	if o.tos < 0 || o.tos > 255 {
		errs = append(errs, fmt.Errorf("tos %d must be between 0 and 255", o.tos))
	}
	if o.poll != PollEvent && o.poll != PollBusy {
		errs = append(errs, fmt.Errorf("poll %d: want event or busy", o.poll))
	}
	if err := o.validateAdaptive(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Limits are the server's limits, learned in the handshake.
type Limits struct {
	// MaxEager bounds eager messages: key+value must be below it.
	MaxEager int
	// MaxKey is the longest key.
	MaxKey int
	// MaxValue is the largest value.
	MaxValue int64
	// PoolSize is the server's value pool in bytes.
	PoolSize int64
	// Lease is how long a rendezvous window stays open.
	Lease time.Duration
	// MaxInflight is the most requests a client may have in flight.
	MaxInflight int
}
