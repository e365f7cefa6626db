package bench

// runLen is how many consecutive operations one run of a sample holds;
// a power of two (runs.every).
const runLen = 64

// samplePairs caps the consecutive pairs a cell's checks are computed on
// (independence, inter-arrivals): enough to see a correlation of 0.1 at
// p < 0.01, few enough that ranking them costs nothing beside a phase.
const samplePairs = 4096

// runs is a bounded sample of consecutive values: runs of runLen values,
// one starting every `every` offered, in a buffer allocated once. It
// keeps everything offered until the buffer is full, then drops every
// other run and doubles the spacing, so that whatever the phase's
// length the runs it holds are spread evenly over it and the buffer
// never grows. Only consecutive values within a run are consecutive
// operations.
type runs[T any] struct {
	buf []T
	// every is runLen times a power of two, so that a mask finds a
	// run's start.
	every int64
	seen  int64
}

func newRuns[T any](capacity int) *runs[T] {
	capacity = max(capacity, 2*runLen) / (2 * runLen) * (2 * runLen)
	return &runs[T]{buf: make([]T, 0, capacity), every: runLen}
}

// next counts one more value offered and says whether the sample keeps
// it; the caller then puts it. Deciding first lets the caller skip
// reading what the sample would not keep.
func (s *runs[T]) next() bool {
	keep := s.seen&(s.every-1) < runLen
	if keep && len(s.buf) == cap(s.buf) {
		s.thin()
		keep = s.seen&(s.every-1) < runLen
	}
	s.seen++
	return keep
}

func (s *runs[T]) put(v T) { s.buf = append(s.buf, v) }

// thin keeps the even runs of a full buffer and doubles the spacing.
func (s *runs[T]) thin() {
	n := 0
	for r := 0; r*runLen < len(s.buf); r += 2 {
		n += copy(s.buf[n:], s.buf[r*runLen:(r+1)*runLen])
	}
	s.buf = s.buf[:n]
	s.every *= 2
}

// pairs calls f on every pair of consecutive values the sample holds,
// until f returns false.
func (s *runs[T]) pairs(f func(a, b T) bool) {
	for i := 1; i < len(s.buf); i++ {
		if i%runLen != 0 && !f(s.buf[i-1], s.buf[i]) {
			return
		}
	}
}

// issued is an open-loop operation's intended start and when it was
// issued, both from the phase start, in nanoseconds.
type issued struct{ off, at int64 }

// sampleCap is each of a phase's workers' share of samplePairs.
func sampleCap(workers int) int { return samplePairs/max(workers, 1) + runLen }

// sampleLatency offers one operation's latency to its cell's sample.
func (r *recorder) sampleLatency(op Op, p Protocol, latNs int64) {
	s := r.lat[op][p]
	if s == nil {
		s = newRuns[int64](r.sampleCap())
		r.lat[op][p] = s
	}
	if s.next() {
		s.put(latNs)
	}
}

// sampleIssue offers one open-loop operation's issue to the sample;
// it reads the clock only when the sample keeps it.
func (r *recorder) sampleIssue(base epoch, off int64) {
	if r.issues == nil {
		r.issues = newRuns[issued](r.sampleCap())
	}
	if r.issues.next() {
		r.issues.put(issued{off, int64(base.since())})
	}
}

func (r *recorder) sampleCap() int {
	if r.perWorker > 0 {
		return r.perWorker
	}
	return samplePairs
}
