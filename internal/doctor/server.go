package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/verbs"
)

const secServer = "server"

// Server is what the server probe learned.
type Server struct {
	Addr      string `json:"addr"`
	Transport string `json:"transport"`
	// AuthRequired is nil when the server could not be asked.
	AuthRequired *bool        `json:"auth_required,omitempty"`
	Limits       *Limits      `json:"limits,omitempty"`
	Link         *rdmakv.Info `json:"link,omitempty"`
	// Samples times one request of each kind: a single sample each, not
	// a measurement (kvbench run is that).
	Samples []Sample `json:"samples,omitempty"`
}

// Limits are the server's limits (rdmakv.Limits).
type Limits struct {
	MaxEager    int   `json:"max_eager"`
	MaxKey      int   `json:"max_key"`
	MaxValue    int64 `json:"max_value"`
	PoolSize    int64 `json:"pool_size"`
	LeaseMillis int64 `json:"lease_ms"`
	MaxInflight int   `json:"max_inflight"`
}

// Sample is one timed request.
type Sample struct {
	Op       string `json:"op"`
	Protocol string `json:"protocol"`
	Bytes    int    `json:"bytes"`
	Nanos    int64  `json:"ns"`
}

func checkServer(ctx context.Context, r *Report, opts Options) {
	if opts.Transport == "" {
		opts.Transport = rdmakv.DefaultTransport
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	s := &Server{Addr: opts.Server, Transport: opts.Transport}
	r.Server = s
	c := connect(ctx, r, s, opts)
	if c == nil {
		return
	}
	defer c.Close()
	l := c.Limits()
	s.Limits = &Limits{MaxEager: l.MaxEager, MaxKey: l.MaxKey, MaxValue: l.MaxValue, PoolSize: l.PoolSize,
		LeaseMillis: l.Lease.Milliseconds(), MaxInflight: l.MaxInflight}
	info := c.Info()
	s.Link = &info
	r.add(secServer, "limits", OK, fmt.Sprintf("max eager %s, key %s, value %s, pool %s, lease %v, %d requests in flight; over %s",
		units.Bytes(int64(l.MaxEager)), units.Bytes(int64(l.MaxKey)), units.Bytes(l.MaxValue), units.Bytes(l.PoolSize), l.Lease, l.MaxInflight, info.Transport), "")
	sample(ctx, r, s, c)
}

// connect dials without a secret first, so that the report can say
// whether the server requires one, then with the secret if it does.
func connect(ctx context.Context, r *Report, s *Server, opts Options) *rdmakv.Client {
	dial := func(secret []byte) (*rdmakv.Client, error) {
		o := []rdmakv.Option{rdmakv.WithTransport(opts.Transport), rdmakv.WithTimeout(opts.Timeout)}
		if opts.Device != "" {
			o = append(o, rdmakv.WithDevice(opts.Device))
		}
		if secret != nil {
			o = append(o, rdmakv.WithAuth(secret))
		}
		return rdmakv.Dial(ctx, opts.Server, o...)
	}
	c, err := dial(nil)
	required := errors.Is(err, rdmakv.ErrAuth)
	if err == nil || required {
		s.AuthRequired = &required
	}
	switch {
	case err == nil:
		detail := "the server serves clients without a secret"
		if opts.Secret != nil {
			detail += "; the --auth-file given is not needed"
		}
		r.add(secServer, "auth", OK, detail, "")
		return c
	case !required:
		r.add(secServer, "connect", Fail, "cannot connect: "+err.Error(), connectFix(err, opts))
		return nil
	case opts.Secret == nil:
		r.add(secServer, "auth", Fail, "the server requires a shared secret and none was given",
			"give the file holding the server's secret (the one kvserver --auth-file reads): --auth-file FILE")
		return nil
	}
	if c, err = dial(opts.Secret); errors.Is(err, rdmakv.ErrAuth) {
		r.add(secServer, "auth", Fail, "the server requires a shared secret and refused the one given: "+err.Error(),
			"give --auth-file the same file as kvserver --auth-file")
		return nil
	} else if err != nil {
		r.add(secServer, "connect", Fail, "cannot connect: "+err.Error(), connectFix(err, opts))
		return nil
	}
	r.add(secServer, "auth", OK, "the server requires a shared secret and accepts the one given", "")
	return c
}

func connectFix(err error, opts Options) string {
	switch {
	case errors.Is(err, rdmakv.ErrNoDevice):
		return verbs.NoDeviceAdvice()
	case errors.Is(err, rdmakv.ErrThreshold):
		return fmt.Sprintf("the server's --max-eager is at most the default eager threshold %d; start it with a larger one", rdmakv.DefaultEagerThreshold)
	}
	return fmt.Sprintf("check that a kvserver listens on %s with --transport %s and that this machine reaches it (firewall, address)", opts.Server, opts.Transport)
}

// sample times one eager and one rendezvous SET and GET of a key of its
// own, then deletes it.
func sample(ctx context.Context, r *Report, s *Server, c *rdmakv.Client) {
	key := fmt.Appendf(nil, "kvbench-doctor-%d", os.Getpid())
	l := c.Limits()
	sizes := []int{32, int(min(int64(16*rdmakv.DefaultEagerThreshold), l.MaxValue))}
	var parts []string
	for _, n := range sizes {
		val := bytes.Repeat([]byte{'d'}, n)
		proto := c.ProtocolFor(len(key), n).String()
		t0 := time.Now()
		err := c.Set(ctx, key, val)
		setNs := time.Since(t0).Nanoseconds()
		var v *rdmakv.Value
		t0 = time.Now()
		if err == nil {
			v, err = c.Get(ctx, key)
		}
		getNs := time.Since(t0).Nanoseconds()
		if err == nil {
			if !bytes.Equal(v.Bytes(), val) {
				err = fmt.Errorf("GET returned %d bytes unlike the %d set", len(v.Bytes()), n)
			}
			v.Release()
		}
		if err != nil {
			r.add(secServer, "requests", Fail, fmt.Sprintf("%s SET and GET of %s: %v", proto, units.Bytes(int64(n)), err),
				"look at the server's log; `kvbench set/get --server` reproduces one request")
			return
		}
		s.Samples = append(s.Samples, Sample{"set", proto, n, setNs}, Sample{"get", proto, n, getNs})
		parts = append(parts, fmt.Sprintf("%s %s SET %s, GET %s", proto, units.Bytes(int64(n)),
			units.Duration(float64(setNs)), units.Duration(float64(getNs))))
	}
	if err := c.Delete(ctx, key); err != nil {
		r.add(secServer, "requests", Warn, fmt.Sprintf("could not delete %s: %v", key, err), "")
	}
	r.add(secServer, "requests", OK, "one sample each, not a measurement: "+strings.Join(parts, "; "), "")
}
