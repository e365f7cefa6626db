// Package cli holds kvbench's cobra commands; cmd/kvbench only calls Execute.
// Each subcommand lives in its own file and registers itself from init, so
// commands are added without touching this file.
package cli

import (
	"github.com/spf13/cobra"
)

var subcommands []func() *cobra.Command

// register adds a subcommand constructor; called from init in each command
// file.
func register(f func() *cobra.Command) { subcommands = append(subcommands, f) }

// NewRoot builds the kvbench command tree.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "kvbench",
		Short: "Benchmark rdmakv eager and rendezvous protocols over RDMA verbs and TCP",
		Long: `kvbench replays YAML workloads against an rdmakv server across value sizes
and eager thresholds, records coordinated-omission-correct HdrHistogram
latencies per cell, writes results (JSON, HdrHistogram logs, a summary),
draws plots and recommends an eager threshold.`,
		Example: `  kvbench run workloads/quickstart.yaml && kvbench plot results/latest
  kvbench tune workloads/threshold-sweep.yaml --server 10.0.0.2:7471 --transport verbs`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, f := range subcommands {
		root.AddCommand(f())
	}
	return root
}
