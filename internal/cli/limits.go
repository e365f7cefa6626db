package cli

import (
	"context"
	"errors"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/store"
)

// checkServer has the harness's store check cfg's cells against what its
// server can run (bench.Harness.Check: rdmakv asks for its limits), so
// that a run the server cannot finish fails, naming every cell it rules
// out, before anything is measured. A server it cannot reach gives an
// unreachableError.
func checkServer(ctx context.Context, h *bench.Harness, cfg bench.Config) error {
	err := h.Check(ctx, cfg)
	if errors.Is(err, store.ErrUnreachable) {
		return unreachableError{err}
	}
	return err
}

// unreachableError is a probe that found no server to ask: nothing is
// known of its limits.
type unreachableError struct{ err error }

func (e unreachableError) Error() string { return e.err.Error() }
func (e unreachableError) Unwrap() error { return e.err }
