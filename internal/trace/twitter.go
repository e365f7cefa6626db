package trace

import (
	"bytes"
	"io"
	"math"

	"github.com/kvbench/kvbench/rdmakv"
)

// The Twitter format (github.com/twitter/cache-trace) is one request a
// line, seven comma-separated columns:
//
//	timestamp,anonymized key,key size,value size,client id,operation,TTL
//
// The timestamp is whole seconds (any origin: Record.Time counts from the
// first line's), never decreasing; the sizes, the client id and the TTL
// are integers >= 0. The anonymized key keeps its namespaces, whose
// delimiters may be anything, a comma included: the reader takes the
// first column and the last five, and the key is all that lies between.
// Operations map onto rdmakv's three:
//
//	get, gets                                      get
//	set, add, replace, cas, append, prepend        set of the recorded value size
//	incr, decr                                     set of the recorded value size
//	delete                                         delete
//
// Any other operation is an error. Blank lines and lines starting with
// '#' (which no Twitter trace has) are skipped.

// maxTwitterSeconds bounds a timestamp so that nanoseconds since the first
// fit an int64.
const maxTwitterSeconds = 9_000_000_000

// twEntry is one buffered line of the current second: a record, or the
// problem with a malformed line (err set, nothing else).
type twEntry struct {
	keyOff, keyLen uint32 // Key is arena[keyOff:keyOff+keyLen]
	keySize        uint32
	valueSize      uint32
	client         uint32
	op             rdmakv.Op
	line           int64
	err            *Error
}

type twitterState struct {
	buf   []twEntry // the current second's lines, in file order
	arena []byte    // their keys
	pos   int       // next entry of buf to return
	n     int64     // records (not errors) in buf
	k     int64     // records of buf returned so far

	started  bool  // a record has been read
	first    int64 // the first record's timestamp
	sec      int64 // the current second's timestamp
	eof      bool  // the file is read: buf is the last second
	pending  twEntry
	pendKey  []byte
	pendSec  int64
	havePend bool // pending is the first record of the next second
}

// twLine is one parsed line.
type twLine struct {
	sec       int64
	key       []byte
	keySize   uint32
	valueSize uint32
	client    uint32
	op        rdmakv.Op
}

func (r *Reader) nextTwitter(rec *Record) error {
	s := &r.tw
	for {
		if s.pos < len(s.buf) {
			e := &s.buf[s.pos]
			s.pos++
			if e.err != nil {
				return e.err
			}
			t := (s.sec-s.first)*1e9 + s.k*1e9/s.n
			s.k++
			// Field by field: a composite literal would be built aside and
			// copied.
			rec.Time, rec.Op, rec.Line = t, e.op, e.line
			rec.Key = s.arena[e.keyOff : e.keyOff+e.keyLen : e.keyOff+e.keyLen]
			rec.KeySize, rec.ValueSize, rec.Client = int(e.keySize), int(e.valueSize), e.client
			return nil
		}
		if s.eof {
			if r.fatal != nil {
				return r.fatal
			}
			return io.EOF
		}
		r.fillTwitter()
	}
}

// fillTwitter buffers the next second: its records, and the problems with
// the lines among them, up to the first record of the second after (kept
// aside in pending) or the end of the file.
func (r *Reader) fillTwitter() {
	s := &r.tw
	s.buf, s.arena = s.buf[:0], s.arena[:0]
	s.pos, s.n, s.k = 0, 0, 0
	if s.havePend {
		s.havePend = false
		s.sec = s.pendSec
		r.bufferTwitter(s.pending, s.pendKey)
	}
	for {
		b, err := r.readLine()
		switch {
		case err == io.EOF:
			s.eof = true
			return
		case err == errTooLong:
			s.buf = append(s.buf, twEntry{err: r.tooLong()})
			continue
		case err != nil:
			s.eof = true
			return
		}
		l, perr := r.parseTwitter(b)
		if perr != nil {
			s.buf = append(s.buf, twEntry{err: perr})
			continue
		}
		e := twEntry{keySize: l.keySize, valueSize: l.valueSize, client: l.client, op: l.op, line: r.line}
		switch {
		case !s.started:
			s.started, s.first, s.sec = true, l.sec, l.sec
		case l.sec < s.sec:
			s.buf = append(s.buf, twEntry{err: r.errorf(r.line, "timestamp %d is before the previous line's %d: a trace's time never goes back", l.sec, s.sec)})
			continue
		case l.sec-s.first > maxTwitterSeconds:
			s.buf = append(s.buf, twEntry{err: r.errorf(r.line, "timestamp %d is more than %d seconds after the first, %d", l.sec, int64(maxTwitterSeconds), s.first)})
			continue
		case l.sec > s.sec && s.n > 0:
			s.pending, s.pendSec, s.havePend = e, l.sec, true
			s.pendKey = append(s.pendKey[:0], l.key...)
			return
		}
		s.sec = l.sec
		if s.n == MaxRequestsPerSecond {
			r.fatal = r.errorf(r.line, "second %d holds more than %d requests, which the reader buffers to spread them across it", l.sec, MaxRequestsPerSecond)
			s.buf = append(s.buf, twEntry{err: r.fatal})
			s.eof = true
			return
		}
		r.bufferTwitter(e, l.key)
	}
}

// bufferTwitter appends a record of the current second, copying its key.
func (r *Reader) bufferTwitter(e twEntry, key []byte) {
	s := &r.tw
	e.keyOff, e.keyLen = uint32(len(s.arena)), uint32(len(key))
	if len(s.arena)+len(key) > math.MaxUint32 {
		// 4 GiB of keys in one second; MaxRequestsPerSecond lines of at
		// most MaxLine bytes can exceed it, so it is checked.
		r.fatal = r.errorf(e.line, "second %d holds more than 4 GiB of keys, which the reader buffers to spread them across it", s.sec)
		s.buf = append(s.buf, twEntry{err: r.fatal})
		s.eof = true
		return
	}
	s.arena = append(s.arena, key...)
	s.buf = append(s.buf, e)
	s.n++
}

// parseTwitter reads one line's seven columns.
func (r *Reader) parseTwitter(b []byte) (twLine, *Error) {
	var l twLine
	// The first column, then the last five from the right: the key, which
	// may hold commas, is what remains.
	c0 := bytes.IndexByte(b, ',')
	var cols [6]int // positions of the last five commas, right to left
	rest := b
	ok := c0 >= 0
	for i := 0; i < 5 && ok; i++ {
		c := bytes.LastIndexByte(rest, ',')
		if c <= c0 {
			ok = false
			break
		}
		cols[i] = c
		rest = rest[:c]
	}
	if !ok {
		return l, r.errorf(r.line, "want 7 comma-separated columns (timestamp,key,key size,value size,client id,operation,TTL), got %d", bytes.Count(b, []byte{','})+1)
	}
	ts, key := b[:c0], b[c0+1:cols[4]]
	ksz, vsz, cid := b[cols[4]+1:cols[3]], b[cols[3]+1:cols[2]], b[cols[2]+1:cols[1]]
	op, ttl := b[cols[1]+1:cols[0]], b[cols[0]+1:]

	sec, ok := parseUint(ts, math.MaxInt64)
	if !ok {
		return l, r.errorf(r.line, "timestamp %s: want whole seconds, an integer >= 0", quote(ts))
	}
	l.sec = int64(sec)
	if len(key) == 0 {
		return l, r.errorf(r.line, "empty key")
	}
	l.key = key
	v, ok := parseUint(ksz, math.MaxUint32)
	if !ok {
		return l, r.errorf(r.line, "key size %s: want an integer from 0 to %d", quote(ksz), uint32(math.MaxUint32))
	}
	l.keySize = uint32(v)
	if v, ok = parseUint(vsz, math.MaxUint32); !ok {
		return l, r.errorf(r.line, "value size %s: want an integer from 0 to %d", quote(vsz), uint32(math.MaxUint32))
	}
	l.valueSize = uint32(v)
	if v, ok = parseUint(cid, math.MaxUint32); !ok {
		return l, r.errorf(r.line, "client id %s: want an integer from 0 to %d", quote(cid), uint32(math.MaxUint32))
	}
	l.client = uint32(v)
	switch string(op) {
	case "get", "gets":
		l.op = rdmakv.OpGet
	case "set", "add", "replace", "cas", "append", "prepend", "incr", "decr":
		l.op = rdmakv.OpSet
	case "delete":
		l.op = rdmakv.OpDelete
	default:
		return l, r.errorf(r.line, "operation %s: want one of get, gets, set, add, replace, cas, append, prepend, delete, incr, decr", quote(op))
	}
	if _, ok := parseUint(ttl, math.MaxInt64); !ok {
		return l, r.errorf(r.line, "TTL %s: want an integer >= 0", quote(ttl))
	}
	return l, nil
}
