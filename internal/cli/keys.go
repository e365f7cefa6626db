package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// keyFlags are the flags of set, get and del: one connection, one request.
type keyFlags struct {
	server, transport, threshold, authFile string
	timeout                                time.Duration
	stat                                   bool
}

func (f *keyFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "localhost", "rdmakv server host or host:port (port "+rdmakv.DefaultPort+" when not given)")
	fl.StringVar(&f.transport, "transport", rdmakv.DefaultTransport, "transport: "+strings.Join(rdmakv.Transports(), ", "))
	fl.StringVar(&f.threshold, "threshold", units.Bytes(rdmakv.DefaultEagerThreshold), "eager threshold: key + value at or above it goes rendezvous")
	fl.StringVar(&f.authFile, "auth-file", "", "file holding the server's shared secret")
	fl.DurationVar(&f.timeout, "timeout", rdmakv.DefaultTimeout, "bound on connecting and on the request")
	fl.BoolVar(&f.stat, "stat", false, "print the value's size, the protocol used and the request's latency on standard error")
	cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions(rdmakv.Transports(), cobra.ShellCompDirectiveNoFileComp))
}

// dial connects as the flags say; ctx bounds the connect.
func (f *keyFlags) dial(ctx context.Context) (*rdmakv.Client, error) {
	thr, err := units.ParseBytes(f.threshold)
	if err != nil {
		return nil, fmt.Errorf("--threshold: %w", err)
	}
	if thr < 0 || thr > rdmakv.MaxEagerLimit {
		return nil, fmt.Errorf("--threshold %s: must be between 0 and %s", f.threshold, units.Bytes(rdmakv.MaxEagerLimit))
	}
	if f.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: must be positive", f.timeout)
	}
	addr := f.server
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, rdmakv.DefaultPort)
	}
	opts := []rdmakv.Option{rdmakv.WithTransport(f.transport), rdmakv.WithEagerThreshold(int(thr)),
		rdmakv.WithTimeout(f.timeout)}
	if f.authFile != "" {
		secret, err := rdmakv.ReadSecret(f.authFile)
		if err != nil {
			return nil, fmt.Errorf("--auth-file: %w", err)
		}
		opts = append(opts, rdmakv.WithAuth(secret))
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	return rdmakv.Dial(ctx, addr, opts...)
}

// request connects, times fn on the connection, then runs then (nil for
// none) before the connection closes. Errors name the operation and key.
func (f *keyFlags) request(cmd *cobra.Command, op, key string, fn func(*rdmakv.Client) error,
	then func() error) (time.Duration, error) {
	c, err := f.dial(cmd.Context())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	start := time.Now()
	err = fn(c)
	d := time.Since(start)
	switch {
	case errors.Is(err, rdmakv.ErrNotFound):
		return d, fmt.Errorf("%s %q: no such key", op, key)
	case err != nil:
		return d, fmt.Errorf("%s %q: %w", op, key, err)
	case then != nil:
		return d, then()
	}
	return d, nil
}

// statLine is --stat's report on standard error; del has no value, so
// no size or protocol (p 0).
func (f *keyFlags) statLine(cmd *cobra.Command, size int, p rdmakv.Protocol, d time.Duration) {
	switch {
	case !f.stat:
	case p == 0:
		fmt.Fprintf(cmd.ErrOrStderr(), "latency=%v\n", d)
	default:
		fmt.Fprintf(cmd.ErrOrStderr(), "size=%d protocol=%s latency=%v\n", size, p, d)
	}
}

func init() {
	register(newSetCmd)
	register(newGetCmd)
	register(newDelCmd)
}

func newSetCmd() *cobra.Command {
	var f keyFlags
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Store one value on an rdmakv server",
		Long:  "set stores VALUE under KEY. A VALUE of - reads the value from standard input, byte for byte.",
		Example: `  kvbench set greeting hello --server 10.0.0.2
  kvbench set blob - --server 10.0.0.2 --transport verbs --stat < image.bin`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			value := []byte(args[1])
			if args[1] == "-" {
				var err error
				if value, err = io.ReadAll(cmd.InOrStdin()); err != nil {
					return fmt.Errorf("read the value from standard input: %w", err)
				}
			}
			var proto rdmakv.Protocol
			d, err := f.request(cmd, "set", args[0], func(c *rdmakv.Client) error {
				proto = c.ProtocolFor(len(args[0]), len(value))
				return c.Set(cmd.Context(), []byte(args[0]), value)
			}, nil)
			if err == nil {
				f.statLine(cmd, len(value), proto, d)
			}
			return err
		},
	}
	f.register(cmd)
	return cmd
}

func newGetCmd() *cobra.Command {
	var f keyFlags
	var out string
	cmd := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one value from an rdmakv server",
		Long: `get writes the value stored under KEY, raw, to standard output (or to the file
-o names). A key that is not there exits 1 with a message on standard error.`,
		Example: `  kvbench get greeting --server 10.0.0.2
  kvbench get blob -o image.bin --stat`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var v *rdmakv.Value
			var size int
			var proto rdmakv.Protocol
			d, err := f.request(cmd, "get", args[0], func(c *rdmakv.Client) (err error) {
				v, err = c.Get(cmd.Context(), []byte(args[0]))
				return err
			}, func() error {
				defer v.Release()
				size, proto = len(v.Bytes()), v.Protocol()
				return writeValue(cmd, out, v.Bytes())
			})
			if err == nil {
				f.statLine(cmd, size, proto, d)
			}
			return err
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the value to this file instead of standard output")
	return cmd
}

// writeValue writes b to the file named out, or to standard output.
func writeValue(cmd *cobra.Command, out string, b []byte) error {
	if out == "" {
		_, err := cmd.OutOrStdout().Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	return nil
}

func newDelCmd() *cobra.Command {
	var f keyFlags
	cmd := &cobra.Command{
		Use:     "del KEY",
		Short:   "Delete one key from an rdmakv server",
		Long:    "del removes KEY. A key that is not there exits 1 with a message on standard error.",
		Example: `  kvbench del greeting --server 10.0.0.2`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := f.request(cmd, "del", args[0], func(c *rdmakv.Client) error {
				return c.Delete(cmd.Context(), []byte(args[0]))
			}, nil)
			if err == nil {
				f.statLine(cmd, 0, 0, d)
			}
			return err
		},
	}
	f.register(cmd)
	return cmd
}
