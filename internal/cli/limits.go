package cli

import (
	"context"
	"fmt"

	"github.com/kvbench/kvbench/internal/bench"
)

// checkServer asks the harness's server for its limits and checks cfg's
// cells against them (bench.CheckLimits), so that a run the server cannot
// finish fails, naming every cell it rules out, before anything is
// measured. A server it cannot reach gives an unreachableError.
func checkServer(ctx context.Context, h *bench.Harness, cfg bench.Config) error {
	addr := h.Addr()
	if b := h.Baseline; b != nil {
		if err := b.Check(ctx, cfg.Cells()); err != nil {
			return fmt.Errorf("%s %s cannot run every cell, so nothing was measured:\n%w", b.Kind(), addr, err)
		}
		return nil
	}
	if h.Embedded != nil {
		addr += " (embedded)"
	}
	lim, err := h.Limits(ctx)
	if err != nil {
		if h.Embedded != nil {
			err = fmt.Errorf("embedded server: %w", err)
		}
		return unreachableError{err}
	}
	if err := bench.CheckLimits(cfg, lim); err != nil {
		return fmt.Errorf("server %s cannot run every cell, so nothing was measured:\n%w", addr, err)
	}
	return nil
}

// unreachableError is a probe that found no server to ask: nothing is
// known of its limits.
type unreachableError struct{ err error }

func (e unreachableError) Error() string { return e.err.Error() }
func (e unreachableError) Unwrap() error { return e.err }
