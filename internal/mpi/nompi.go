//go:build !mpi

package mpi

// Built says this kvbench has MPI.
const Built = false

// World is this process's place in MPI_COMM_WORLD; without the mpi build
// tag there is none.
type World struct{}

// Join reports ErrNotBuilt.
func Join() (*World, error) { return nil, ErrNotBuilt }

// Rank is 0.
func (w *World) Rank() int { return 0 }

// Size is 1.
func (w *World) Size() int { return 1 }

// Barrier does nothing.
func (w *World) Barrier() error { return nil }

// AnyOf returns flag.
func (w *World) AnyOf(flag bool) (bool, error) { return flag, nil }

// Gather returns b alone.
func (w *World) Gather(b []byte) ([][]byte, error) { return [][]byte{b}, nil }

// Abort does nothing.
func (w *World) Abort(int) {}

// Finalize does nothing.
func (w *World) Finalize() error { return nil }
