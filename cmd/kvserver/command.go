package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// flags holds the command line as typed; sizes stay strings so one
// validation pass can report every bad value.
type flags struct {
	listen, transport, device         string
	poolSize, maxEager, maxValue      string
	maxGrant                          string
	maxKey, recvDepth, maxConns       int
	maxRecvs                          int
	maxHandshakes, tos                int
	lease, busyIdle, handshake, stall time.Duration
	poll, logLevel, authFile          string
	receives                          string
	metrics                           string
}

func newCommand(stdout, stderr io.Writer) *cobra.Command {
	var f flags
	cmd := &cobra.Command{
		Use:   "kvserver",
		Short: "Serve an rdmakv key-value store over RDMA verbs or TCP",
		Long: `kvserver keeps an in-memory key-value map in one registered memory pool
and serves rdmakv clients: small requests eager (inline in one message), large
ones rendezvous (one-sided RDMA into and out of the pool). It runs until
SIGINT or SIGTERM, then closes every connection and exits 0. SIGUSR1 logs one
line of what it holds: connections, keys, pool bytes in use, goroutines.`,
		Example: `  kvserver --listen 10.0.0.2:7471 --transport verbs --poll busy --busy-idle 5ms
  kvserver --listen 0.0.0.0:7471 --transport auto --pool-size 1GiB --max-eager 64KiB
  kvserver --listen 0.0.0.0:7471 --auth-file /etc/kvbench/kv.secret`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(stderr)
			if err != nil {
				return err
			}
			m, err := listenMetrics(f.metrics)
			if err != nil {
				return err
			}
			s, err := rdmakv.Listen(cfg)
			if err != nil {
				return errors.Join(err, m.close())
			}
			defer logStatsOn(s, cfg.Logger, syscall.SIGUSR1)()
			info := s.Info()
			recv := ""
			if info.Receives != rdmakv.ReceivesAuto {
				recv = ", receives " + info.Receives.String()
			}
			fmt.Fprintf(stdout, "kvserver listening on %s (transport %s%s)\n", s.Addr(), info.Transport, recv)
			m.serve(s, stdout)
			<-cmd.Context().Done()
			return errors.Join(s.Close(), m.close())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", rdmakv.DefaultListen, "host:port to listen on (port 0 picks a free one)")
	fl.StringVar(&f.transport, "transport", rdmakv.DefaultTransport, "transport: "+strings.Join(rdmakv.Transports(), ", ")+" (auto: verbs, else tcp)")
	fl.StringVar(&f.poolSize, "pool-size", units.Bytes(rdmakv.DefaultPoolSize), "registered value pool size (B, KiB, MiB, GiB; multiple of 64 bytes)")
	fl.StringVar(&f.maxEager, "max-eager", units.Bytes(rdmakv.DefaultMaxEager), "largest eager message: key+value must be below it; clients with a higher threshold are refused")
	fl.IntVar(&f.maxKey, "max-key", rdmakv.DefaultMaxKey, "longest key in bytes (at most 65535)")
	fl.StringVar(&f.maxValue, "max-value", "", "largest value (default: the smaller of "+units.Bytes(rdmakv.DefaultMaxValue)+" and the pool size)")
	fl.StringVar(&f.maxGrant, "max-grant", "", "each connection's share of the pool for uncommitted set grants; more only while a quarter stays free (default: the larger of --max-value and a quarter of the pool)")
	fl.DurationVar(&f.lease, "lease", rdmakv.DefaultLease, "how long a rendezvous window stays open before it is revoked and reclaimed")
	fl.IntVar(&f.recvDepth, "recv-depth", rdmakv.DefaultRecvDepth, "server receive buffers (shared by all connections on verbs, each connection's own on tcp), divided among clients by credit; also each client's in-flight limit")
	fl.IntVar(&f.maxRecvs, "max-recvs", 0, "the most receive buffers verbs' shared queue grows to, --recv-depth at a time, when clients' credit asks for more (default 1024, or as many as fit in 64 MiB of --max-eager buffers if fewer; at least --recv-depth)")
	fl.StringVar(&f.receives, "receives", "auto", "verbs: auto (one shared receive queue where the device has one, else one per connection), shared or per-connection (--recv-depth each)")
	fl.StringVar(&f.poll, "poll", "event", "completion polling: event or busy")
	fl.DurationVar(&f.busyIdle, "busy-idle", 0, "with --poll busy, sleep until the next request after this long with none (0: spin always)")
	fl.DurationVar(&f.handshake, "handshake-timeout", rdmakv.DefaultHandshakeTimeout, "drop a connection that has not sent HELLO by then")
	fl.DurationVar(&f.stall, "stall-timeout", rdmakv.DefaultStallTimeout, "drop a client that leaves its replies untaken this long")
	fl.IntVar(&f.maxConns, "max-conns", rdmakv.DefaultMaxConns, "most connections served at once (past HELLO); one more is refused at its HELLO")
	fl.IntVar(&f.maxHandshakes, "max-handshakes", rdmakv.DefaultMaxHandshakes, "most connections waiting for HELLO; past it the one waiting longest is closed, so newcomers get in")
	fl.StringVar(&f.authFile, "auth-file", "", "file holding a shared secret (16+ bytes, mode 600) that clients must prove they know before they are served")
	fl.IntVar(&f.tos, "tos", 0, "IP type-of-service byte of the server's traffic, DSCP << 2 | ECN (IP_TOS on tcp; on RoCE a connection runs in its client's class)")
	fl.StringVar(&f.device, "device", "", "RDMA device name (verbs; default: the one owning the listen address)")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fl.StringVar(&f.metrics, "metrics", "", "host:port to serve Prometheus metrics on at /metrics (default: none)")
	return cmd
}

// config turns the flags into a server configuration, reporting every
// problem at once.
func (f *flags) config(logOut io.Writer) (rdmakv.ServerConfig, error) {
	var errs []error
	size := func(name, v string) int64 { return parseSize(&errs, name, v) }
	cfg := rdmakv.ServerConfig{
		Listen:    f.listen,
		Transport: f.transport,
		PoolSize:  size("pool-size", f.poolSize),
		MaxEager:  int(size("max-eager", f.maxEager)),
		MaxKey:    f.maxKey,
		MaxValue:  size("max-value", f.maxValue),

		MaxGrantBytes: size("max-grant", f.maxGrant),
		Lease:         f.lease,
		RecvDepth:     f.recvDepth,
		MaxRecvs:      f.maxRecvs,
		BusyIdle:      f.busyIdle,
		Device:        f.device,
		TOS:           f.tos,

		HandshakeTimeout: f.handshake,
		StallTimeout:     f.stall,
		MaxConns:         f.maxConns,
		MaxHandshakes:    f.maxHandshakes,
	}
	level := f.words(&cfg, &errs)
	f.ranges(&cfg, &errs)
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: level}))
	return cfg, errors.Join(errs...)
}

// parseSize reads a size flag; 0 (the default, which Validate then does
// not question) for one left empty or bad, which goes to errs.
func parseSize(errs *[]error, name, v string) int64 {
	if v == "" {
		return 0
	}
	n, err := units.ParseBytes(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("--%s: %w", name, err))
		return 0
	}
	if n <= 0 {
		*errs = append(*errs, fmt.Errorf("--%s %s: must be positive", name, v))
		return 0
	}
	return n
}

// words reads the flags that name a choice or a file into cfg, and
// returns the log level.
func (f *flags) words(cfg *rdmakv.ServerConfig, errs *[]error) slog.Level {
	if f.authFile != "" {
		secret, err := rdmakv.ReadSecret(f.authFile)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("--auth-file: %w", err))
		}
		cfg.AuthSecret = secret
	}
	if r, err := rdmakv.ParseReceives(f.receives); err != nil {
		*errs = append(*errs, fmt.Errorf("--%w", err))
	} else {
		cfg.Receives = r
	}
	if p, err := rdmakv.ParsePoll(f.poll); err != nil {
		*errs = append(*errs, fmt.Errorf("--%w", err))
	} else {
		cfg.Poll = p
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil || strings.ContainsAny(f.logLevel, "+-") {
		*errs = append(*errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel))
	}
	return level
}

// ranges checks the numeric flags; a bad one is said here and left at
// its default, so Validate does not say it again.
func (f *flags) ranges(cfg *rdmakv.ServerConfig, errs *[]error) {
	positive(errs, "max-key", &cfg.MaxKey)
	positive(errs, "recv-depth", &cfg.RecvDepth)
	if f.maxRecvs < 0 {
		*errs = append(*errs, fmt.Errorf("--max-recvs %d: must not be negative", f.maxRecvs))
		cfg.MaxRecvs = 0
	}
	positive(errs, "lease", &cfg.Lease)
	positive(errs, "handshake-timeout", &cfg.HandshakeTimeout)
	positive(errs, "stall-timeout", &cfg.StallTimeout)
	positive(errs, "max-conns", &cfg.MaxConns)
	positive(errs, "max-handshakes", &cfg.MaxHandshakes)
	if f.busyIdle < 0 {
		*errs = append(*errs, fmt.Errorf("--busy-idle %v: must not be negative", f.busyIdle))
		cfg.BusyIdle = 0
	}
	if f.tos < 0 || f.tos > 255 {
		*errs = append(*errs, fmt.Errorf("--tos %d: want a type-of-service byte, 0 to 255 (DSCP << 2 | ECN)", f.tos))
		cfg.TOS = 0
	}
}

// positive reports a flag that is zero or negative. Zero would mean
// "default" to the library; on the command line it is a mistake. The field
// is then left at its default so Validate does not report the value twice.
func positive[T int | time.Duration](errs *[]error, name string, field *T) {
	if *field <= 0 {
		*errs = append(*errs, fmt.Errorf("--%s %v: must be positive", name, *field))
		*field = 0
	}
}
