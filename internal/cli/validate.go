package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/workload"
)

func init() { register(newValidateCmd) }

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check workload files and list every problem with its file:line",
		Long: `validate decodes each workload file strictly (unknown fields, wrong types,
impossible values, duplicates), applies defaults and reports every problem
as FILE:LINE:COL: field: message. A file without problems prints
"FILE: ok". The exit status is non-zero if any file has a problem.`,
		Example: `  kvbench validate workloads/*.yaml
  kvbench validate my-sweep.yaml && kvbench run my-sweep.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, path := range args {
				if _, err := workload.LoadFile(path); err != nil {
					bad++
					fmt.Fprintln(cmd.OutOrStdout(), err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", path)
			}
			if bad > 0 {
				return errors.New(countFiles(bad) + " with problems")
			}
			return nil
		},
	}
}

func countFiles(n int) string {
	if n == 1 {
		return "1 workload file"
	}
	return fmt.Sprintf("%d workload files", n)
}
