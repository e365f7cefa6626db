// Command kvserver runs an rdmakv server until SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/kvbench/kvbench/rdmakv/tcp"
	_ "github.com/kvbench/kvbench/rdmakv/verbs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// After the first signal the default action returns, so a second one
	// kills a shutdown that hangs.
	go func() { <-ctx.Done(); stop() }()
	cmd := newCommand(os.Stdout, os.Stderr)
	if err := cmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "kvserver:", err)
		os.Exit(1)
	}
}
