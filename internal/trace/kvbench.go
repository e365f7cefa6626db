package trace

import (
	"bytes"
	"math"

	"github.com/kvbench/kvbench/rdmakv"
)

// KvbenchHeader is the first line of a trace in the kvbench format. Each
// line after it is one request:
//
//	time_ns,op,key,value_size
//	0,set,user:42,4096
//	1500,get,user:42,4096
//	1500,delete,user:42,0
//
// time_ns is an integer >= 0 in nanoseconds on any clock (Record.Time
// counts from the first line's), never decreasing; op is get, set or
// delete; key is the key's bytes, not empty, and may hold commas (the
// reader takes the first two columns and the last, and the key is all that
// lies between) but no newline; value_size is an integer from 0 to
// 2^32-1: the size a
// set writes, the size a get expects. Blank lines and lines starting with
// '#' are skipped, before the header too.
const KvbenchHeader = "time_ns,op,key,value_size"

type kvbenchState struct {
	header  bool // the header line has been read (or reported missing)
	started bool
	first   int64 // the first record's time_ns
	prev    int64 // the previous record's time_ns
}

func (r *Reader) nextKvbench(rec *Record) error {
	s := &r.kv
	for {
		b, err := r.readLine()
		switch {
		case err == errTooLong:
			s.header = true
			return r.tooLong()
		case err != nil:
			return err
		}
		if !s.header {
			s.header = true
			if string(b) == KvbenchHeader {
				continue
			}
			return r.errorf(r.line, "want the header line %q first, got %s", KvbenchHeader, quote(b))
		}
		return r.parseKvbench(b, rec)
	}
}

func (r *Reader) parseKvbench(b []byte, rec *Record) error {
	s := &r.kv
	c0 := bytes.IndexByte(b, ',')
	c1 := -1
	if c0 >= 0 {
		if i := bytes.IndexByte(b[c0+1:], ','); i >= 0 {
			c1 = c0 + 1 + i
		}
	}
	c2 := bytes.LastIndexByte(b, ',')
	if c1 < 0 || c2 <= c1 {
		return r.errorf(r.line, "want 4 comma-separated columns (%s), got %d", KvbenchHeader, bytes.Count(b, []byte{','})+1)
	}
	ts, op, key, vsz := b[:c0], b[c0+1:c1], b[c1+1:c2], b[c2+1:]
	t, ok := parseUint(ts, math.MaxInt64)
	if !ok {
		return r.errorf(r.line, "time_ns %s: want an integer >= 0", quote(ts))
	}
	var o rdmakv.Op
	switch string(op) {
	case "get":
		o = rdmakv.OpGet
	case "set":
		o = rdmakv.OpSet
	case "delete":
		o = rdmakv.OpDelete
	default:
		return r.errorf(r.line, "op %s: want get, set or delete", quote(op))
	}
	if len(key) == 0 {
		return r.errorf(r.line, "empty key")
	}
	v, ok := parseUint(vsz, math.MaxUint32)
	if !ok {
		return r.errorf(r.line, "value_size %s: want an integer from 0 to %d", quote(vsz), uint32(math.MaxUint32))
	}
	if !s.started {
		s.started, s.first, s.prev = true, int64(t), int64(t)
	}
	if int64(t) < s.prev {
		return r.errorf(r.line, "time_ns %d is before the previous line's %d: a trace's time never goes back", t, s.prev)
	}
	s.prev = int64(t)
	// Field by field: a composite literal would be built aside and copied.
	rec.Time, rec.Op, rec.Key, rec.KeySize = int64(t)-s.first, o, key, len(key)
	rec.ValueSize, rec.Client, rec.Line = int(v), 0, r.line
	return nil
}
