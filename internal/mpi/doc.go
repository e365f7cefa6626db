// Package mpi is the few MPI calls kvbench needs to run as an MPI job:
// joining the world, rank and size, a barrier, gathering bytes to rank 0,
// aborting and finalizing. It is a thin cgo layer over the MPI C library,
// built only with the mpi build tag (make build-mpi; Debian: libopenmpi-dev,
// openmpi-bin); without it Join reports that MPI is not built in.
//
// Every call is blocking and the package serialises them, so the MPI
// library sees one call at a time from whichever thread the goroutine is
// on (MPI_THREAD_SERIALIZED). No Go memory is handed to MPI: buffers are
// copied to and from C memory.
package mpi

import (
	"errors"
	"os"
)

// ErrNotBuilt is Join's error in a build without the mpi tag.
var ErrNotBuilt = errors.New("this kvbench is built without MPI: build it with make build-mpi")

// Launched reports whether an MPI launcher started this process: mpirun
// (Open MPI: OMPI_COMM_WORLD_SIZE), Hydra (PMI_SIZE) or a PMIx launcher
// such as srun --mpi=pmix (PMIX_RANK).
func Launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"} {
		if _, ok := os.LookupEnv(v); ok {
			return true
		}
	}
	return false
}
