package bench

import (
	"errors"
	"fmt"
	"io"

	"github.com/kvbench/kvbench/internal/trace"
)

// source reads a replay's window: the requests of the trace inside it,
// their times counted from the window's first request, and with loop the
// window again and again, each pass's times after the last's.
type source struct {
	rp    *Replay
	r     *trace.Reader
	n     int64 // well-formed requests read in this pass
	taken int64 // requests of the window in this pass
	// origin is the recorded time of the pass's first request; last the
	// time of its latest, counted from origin; shift what loops add.
	origin, last, shift int64
	loop                bool
}

func openSource(rp *Replay, loop bool) (*source, error) {
	r, err := trace.Open(rp.Path, rp.Format)
	if err != nil {
		return nil, err
	}
	return &source{rp: rp, r: r, loop: loop}, nil
}

func (s *source) close() {
	if s.r != nil {
		s.r.Close()
	}
}

// next reads the window's next request into rec, its Time counted from
// the window's first; io.EOF at the window's end (never, with loop). A
// malformed line is an error naming its file and line.
func (s *source) next(rec *trace.Record) error {
	for {
		err := s.r.Read(rec)
		if err == io.EOF || err == nil && s.past(rec) {
			if err := s.rewind(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		s.n++
		if s.before(rec) {
			continue
		}
		if s.taken == 0 {
			s.origin = rec.Time
		}
		s.taken++
		s.last = rec.Time - s.origin
		rec.Time = s.last + s.shift
		return nil
	}
}

// before says rec (the s.n-th request, from 1) comes before the window.
func (s *source) before(rec *trace.Record) bool {
	if s.rp.Skip > 0 {
		return s.n <= s.rp.Skip
	}
	return rec.Time < int64(s.rp.Start)
}

// past says rec comes after the window.
func (s *source) past(rec *trace.Record) bool {
	switch {
	case s.rp.Ops > 0:
		return s.taken >= s.rp.Ops
	case s.rp.Duration > 0:
		return rec.Time >= int64(s.rp.Start+s.rp.Duration)
	}
	return false
}

// errEmptyWindow is a window without a request.
var errEmptyWindow = errors.New("the trace's window holds no request")

// rewind ends a pass: io.EOF without loop, else the window again from its
// start, its times after this pass's last by the pass's mean gap.
func (s *source) rewind() error {
	if s.taken == 0 {
		return fmt.Errorf("%s: %w (%s)", s.r.Name(), errEmptyWindow, s.rp.Spec)
	}
	if !s.loop {
		return io.EOF
	}
	r, err := trace.Open(s.rp.Path, s.rp.Format)
	if err != nil {
		return err
	}
	gap := int64(1)
	if s.taken > 1 {
		gap = max(s.last/(s.taken-1), 1)
	}
	s.shift += s.last + gap
	s.r.Close()
	s.r, s.n, s.taken, s.last = r, 0, 0, 0
	return nil
}
