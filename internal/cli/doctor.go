package cli

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/doctor"
	"github.com/kvbench/kvbench/rdmakv"
)

func init() { register(newDoctorCmd) }

type doctorFlags struct {
	server, transport, device, authFile, format string
	timeout                                     time.Duration
}

func newDoctorCmd() *cobra.Command {
	var f doctorFlags
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check whether and how rdmakv runs on this machine, and what to fix",
		Long: `Doctor checks, on the machine it runs on, what decides whether and how
rdmakv runs over RDMA: the devices (transport, provider, firmware, ports,
GIDs) and /dev/infiniband; the capabilities rdmakv uses (memory windows,
inline data, shared receive queues, work requests); the locked-memory limit
against what the defaults register, open files, the clock source, the CPU
governor and the device's NUMA node. With --server it connects as a client,
reports the server's limits and whether it requires a secret, and times one
eager and one rendezvous SET and GET (one sample each, not a measurement).
Every problem comes with its fix.

Exit status: 0 when a run would work (warnings allowed), 1 when a check failed.`,
		Example: `  kvbench doctor
  kvbench doctor --server 10.0.0.2:7471 --transport verbs --auth-file kv.secret
  kvbench doctor --format json | jq '.checks[] | select(.status != "ok")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(cmd, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "also check this rdmakv server, host or host:port (port "+rdmakv.DefaultPort+" when not given)")
	fl.StringVar(&f.transport, "transport", rdmakv.DefaultTransport, "transport to reach --server over: "+strings.Join(rdmakv.Transports(), ", "))
	fl.StringVar(&f.device, "device", "", "check only this RDMA device (and reach --server through it)")
	fl.StringVar(&f.authFile, "auth-file", "", "file holding the server's shared secret")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "bound on the server checks")
	cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions(rdmakv.Transports(), cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runDoctor(cmd *cobra.Command, f *doctorFlags) error {
	if f.format != "text" && f.format != "json" {
		return fmt.Errorf("--format %q: want text or json", f.format)
	}
	if err := rdmakv.CheckTransport(f.transport); err != nil {
		return fmt.Errorf("--transport: %w", err)
	}
	opts := doctor.Options{Device: f.device, Server: f.server, Transport: f.transport, Timeout: f.timeout}
	if _, _, err := net.SplitHostPort(opts.Server); opts.Server != "" && err != nil {
		opts.Server = net.JoinHostPort(opts.Server, rdmakv.DefaultPort)
	}
	if f.authFile != "" {
		secret, err := rdmakv.ReadSecret(f.authFile)
		if err != nil {
			return fmt.Errorf("--auth-file: %w", err)
		}
		opts.Secret = secret
	}
	r := doctor.Run(cmd.Context(), doctor.System(), opts)
	out := cmd.OutOrStdout()
	write := r.WriteText
	if f.format == "json" {
		write = r.WriteJSON
	}
	if err := write(out); err != nil {
		return err
	}
	if !r.OK {
		return &ExitError{Code: 1, Err: errors.New("doctor: a check failed; its fix is in the report")}
	}
	return nil
}
