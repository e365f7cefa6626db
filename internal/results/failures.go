package results

// NotFound is the kind in Cell.Errors of a GET or DELETE whose key was
// absent: a miss.
const NotFound = "not_found"

// Failures are the cell's operations that failed: every kind in Errors
// except NotFound. A miss is not a failure: it is the target's answer that
// the key is absent, a normal outcome of a GET of a key never set (or one
// deleted), timed like any answer and, in verify mode, checked against
// what the key should hold. The harness's progress lines count errors the
// same way. Every "errors" figure kvbench prints or writes is this count:
// run's and report's tables, a merged run's ranks, and tune's refusal of
// a measurement most of whose operations failed.
func (c Cell) Failures() int64 {
	var n int64
	for kind, k := range c.Errors {
		if kind != NotFound {
			n += k
		}
	}
	return n
}
