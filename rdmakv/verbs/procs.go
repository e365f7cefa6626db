//go:build linux && cgo

package verbs

import "runtime"

// minBusyProcs is the fewest Go processors (GOMAXPROCS) a process that
// busy-polls runs with. A busy poller spends most of its time in C: its
// poll bursts, and posts that on rxe do the send's kernel work before
// they return. The Go runtime treats a C call as a system call, and with
// no idle processor its monitor takes the processor from a call that
// spans two of its ticks (20 us), hands it to another thread and then
// keeps ticking every 20 us, each tick a context switch on the poller's
// CPU. With one processor idle it leaves such calls alone for 10 ms.
// Go sets GOMAXPROCS to the CPUs a process may run on, so a poller pinned
// to one CPU (taskset, as benchmarks pin) gets 1. In the Soft-RoCE guest,
// client and server each pinned, eager GET p99 was 0.46-0.83 ms with 1
// and 0.29-0.32 ms with 2, and one side made 10-14 thousand context
// switches per 20 000 operations with 1, 3-6 thousand with 2.
const minBusyProcs = 2

// ensureBusyProcs raises GOMAXPROCS to minBusyProcs; it never lowers it.
func ensureBusyProcs() {
	if runtime.GOMAXPROCS(0) < minBusyProcs {
		runtime.GOMAXPROCS(minBusyProcs)
	}
}
