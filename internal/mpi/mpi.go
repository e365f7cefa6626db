//go:build mpi

package mpi

/*
#cgo pkg-config: ompi-c
#include <stdlib.h>
#include <mpi.h>

static int kvmpi_init(int *provided) {
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, provided);
}
static int kvmpi_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int kvmpi_size(int *n) { return MPI_Comm_size(MPI_COMM_WORLD, n); }
static int kvmpi_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int kvmpi_any(int in, int *out) {
	return MPI_Allreduce(&in, out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}
static int kvmpi_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static int kvmpi_finalize(void) { return MPI_Finalize(); }

// kvmpi_gather_lens gathers one long long per rank to rank 0.
static int kvmpi_gather_lens(long long n, long long *lens) {
	return MPI_Gather(&n, 1, MPI_LONG_LONG, lens, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
}

// kvmpi_gatherv gathers n bytes from each rank into buf on rank 0, rank
// i's at offs[i]; counts are ints, so a part is below 2 GiB.
static int kvmpi_gatherv(const void *data, int n, void *buf, int *counts, int *offs) {
	return MPI_Gatherv(data, n, MPI_BYTE, buf, counts, offs, MPI_BYTE, 0, MPI_COMM_WORLD);
}
*/
import "C"

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// Built says this kvbench has MPI.
const Built = true

// World is this process's place in MPI_COMM_WORLD.
type World struct {
	mu         sync.Mutex
	rank, size int
	done       bool
}

// Join initialises MPI and returns the world.
func Join() (*World, error) {
	var provided C.int
	if rc := C.kvmpi_init(&provided); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("MPI_Init_thread: error %d", int(rc))
	}
	if provided < C.MPI_THREAD_SERIALIZED {
		C.kvmpi_finalize()
		return nil, fmt.Errorf("MPI_Init_thread: the library provides thread level %d, below MPI_THREAD_SERIALIZED", int(provided))
	}
	var r, n C.int
	if rc := C.kvmpi_rank(&r); rc != C.MPI_SUCCESS {
		C.kvmpi_finalize()
		return nil, fmt.Errorf("MPI_Comm_rank: error %d", int(rc))
	}
	if rc := C.kvmpi_size(&n); rc != C.MPI_SUCCESS {
		C.kvmpi_finalize()
		return nil, fmt.Errorf("MPI_Comm_size: error %d", int(rc))
	}
	return &World{rank: int(r), size: int(n)}, nil
}

// Rank is this process's rank.
func (w *World) Rank() int { return w.rank }

// Size is the number of ranks.
func (w *World) Size() int { return w.size }

// Barrier returns when every rank has called it.
func (w *World) Barrier() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if rc := C.kvmpi_barrier(); rc != C.MPI_SUCCESS {
		return fmt.Errorf("MPI_Barrier: error %d", int(rc))
	}
	return nil
}

// AnyOf is a barrier that also tells every rank whether any rank passed
// true.
func (w *World) AnyOf(flag bool) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	in, out := C.int(0), C.int(0)
	if flag {
		in = 1
	}
	if rc := C.kvmpi_any(in, &out); rc != C.MPI_SUCCESS {
		return false, fmt.Errorf("MPI_Allreduce: error %d", int(rc))
	}
	return out != 0, nil
}

// Gather sends b to rank 0, which gets every rank's bytes in rank order;
// the other ranks get nil.
func (w *World) Gather(b []byte) ([][]byte, error) {
	if len(b) >= math.MaxInt32 {
		return nil, fmt.Errorf("gather: %d bytes is more than MPI_Gatherv's int count", len(b))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var lens *C.longlong
	if w.rank == 0 {
		lens = (*C.longlong)(C.calloc(C.size_t(w.size), C.size_t(unsafe.Sizeof(C.longlong(0)))))
		defer C.free(unsafe.Pointer(lens))
	}
	if rc := C.kvmpi_gather_lens(C.longlong(len(b)), lens); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("MPI_Gather: error %d", int(rc))
	}
	data := C.CBytes(b)
	defer C.free(data)
	var buf unsafe.Pointer
	var counts, offs *C.int
	var sizes []int
	if w.rank == 0 {
		sizes = make([]int, w.size)
		total := 0
		for i, n := range unsafe.Slice(lens, w.size) {
			sizes[i] = int(n)
			total += int(n)
		}
		if total >= math.MaxInt32 {
			return nil, fmt.Errorf("gather: %d bytes in all is more than MPI_Gatherv's int offsets", total)
		}
		counts = (*C.int)(C.calloc(C.size_t(w.size), C.size_t(unsafe.Sizeof(C.int(0)))))
		defer C.free(unsafe.Pointer(counts))
		offs = (*C.int)(C.calloc(C.size_t(w.size), C.size_t(unsafe.Sizeof(C.int(0)))))
		defer C.free(unsafe.Pointer(offs))
		cs, ofs := unsafe.Slice(counts, w.size), unsafe.Slice(offs, w.size)
		off := 0
		for i, n := range sizes {
			cs[i], ofs[i] = C.int(n), C.int(off)
			off += n
		}
		buf = C.malloc(C.size_t(max(total, 1)))
		defer C.free(buf)
	}
	if rc := C.kvmpi_gatherv(data, C.int(len(b)), buf, counts, offs); rc != C.MPI_SUCCESS {
		return nil, fmt.Errorf("MPI_Gatherv: error %d", int(rc))
	}
	if w.rank != 0 {
		return nil, nil
	}
	out := make([][]byte, w.size)
	off := 0
	for i, n := range sizes {
		out[i] = C.GoBytes(unsafe.Add(buf, off), C.int(n))
		off += n
	}
	return out, nil
}

// Abort ends every rank of the job with code.
func (w *World) Abort(code int) { C.kvmpi_abort(C.int(code)) }

// Finalize leaves MPI; idempotent.
func (w *World) Finalize() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	if rc := C.kvmpi_finalize(); rc != C.MPI_SUCCESS {
		return fmt.Errorf("MPI_Finalize: error %d", int(rc))
	}
	return nil
}
