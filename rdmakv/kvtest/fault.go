package kvtest

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// noFault runs fn with memory faults turned into panics on this goroutine
// and reports one as a test failure naming where it happened. A Value or
// staging buffer whose registered memory was unmapped under it would
// otherwise kill the whole test binary with SIGSEGV and hide every later
// result.
func noFault(t *testing.T, what string, fn func()) (ok bool) {
	t.Helper()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v at %s (registered memory unmapped while still in use?)", what, r, faultSite())
			ok = false
		}
	}()
	fn()
	return true
}

// faultSite lists the project frames of the panicking goroutine, innermost
// first, so the report says whether the fault was in the library or in the
// caller reading a Value.
func faultSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []string
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "kvbench/rdmakv") && !strings.Contains(f.Function, "kvtest.noFault") {
			out = append(out, f.Function[strings.LastIndex(f.Function, "/")+1:]+":"+itoa(f.Line))
		}
		if !more || len(out) == 4 {
			break
		}
	}
	return strings.Join(out, " <- ")
}
