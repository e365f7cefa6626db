// Command kvbench benchmarks rdmakv; see internal/cli for the commands.
package main

import (
	"fmt"
	"os"

	"github.com/kvbench/kvbench/internal/cli"
)

func main() {
	if err := cli.NewRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kvbench:", err)
		os.Exit(cli.ExitCode(err))
	}
}
