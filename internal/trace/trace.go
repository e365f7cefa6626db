// Package trace reads recorded key-value request traces as a stream of
// records, and summarises them (Stats) and checks them (Validate) in one
// pass. Two formats are read, plain or zstd-compressed (told apart by the
// file's first bytes, not its name):
//
//   - Twitter: the comma-separated rows of Twitter's production cache
//     traces (github.com/twitter/cache-trace): timestamp in seconds,
//     anonymized key, key size, value size, client id, operation, TTL.
//   - Kvbench: kvbench's own, a header line "time_ns,op,key,value_size"
//     then one request a line with its time in nanoseconds.
//
// Format Auto reads either: kvbench's when the first line that is neither
// blank nor a comment is its header, else Twitter's.
//
// # Memory
//
// Reading is streaming and its memory does not grow with the trace: a
// 10 GB trace takes what a 10 MB one does. A Reader holds a 64 KiB line
// buffer (MaxLine; two for zstd), the zstd decoder's window (at most
// MaxWindow; zstd's levels up to 19 use at most 8 MiB) and, for the
// Twitter format only, the records of one recorded second (below). Read
// does not allocate once these buffers have grown to the trace's largest
// second.
//
// # Time
//
// Record.Time is nanoseconds since the trace's first request. Twitter's
// timestamps are whole seconds, so the requests of one second are spread
// evenly across it in file order: the i-th of a second's n requests is at
// that second plus i*1s/n. The reader knows n only when it reads the first
// line of the next second, so it buffers the records of one second; what
// that takes is bounded by the busiest second's request count, not by the
// trace's length: about 40 bytes plus the key a request, so 90 MB for a
// second of a million 50-byte keys. A second of more than
// MaxRequestsPerSecond requests is an error that ends the read. The
// kvbench format carries nanoseconds and is not buffered.
//
// # Errors
//
// Every problem is an *Error naming the file and line. A malformed line is
// reported by Read, which goes on with the next line when called again, so
// a reader can list every problem (Validate does); a failure to read the
// file (a corrupt zstd stream, an I/O error) ends the read, and every later
// call returns it again.
package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/kvbench/kvbench/rdmakv"
)

// Format names a trace format.
type Format string

// The formats Open reads. Auto is either, told apart by the first line
// (see detect).
const (
	Auto    Format = "auto"
	Twitter Format = "twitter"
	Kvbench Format = "kvbench"
)

// Formats lists every format, for flags and messages.
var Formats = []Format{Auto, Twitter, Kvbench}

// ParseFormat reads a format's name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if s == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("trace format %q: want %s", s, strings.Join(FormatNames(), " or "))
}

// FormatNames are the names of Formats, in order.
func FormatNames() []string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return names
}

const (
	// MaxLine is the longest line a reader takes, its newline included;
	// a longer one is an error (and the reader skips past it).
	MaxLine = 64 << 10
	// MaxWindow bounds the window of a zstd stream, and so the decoder's
	// memory; zstd's levels up to 19 use at most 8 MiB, --long and
	// --ultra -22 128 MiB. A stream asking for more is a failed read.
	MaxWindow = 128 << 20
	// MaxRequestsPerSecond bounds one recorded second of a Twitter trace,
	// which the reader buffers to spread it (see Time in the package doc).
	MaxRequestsPerSecond = 1 << 24
)

// Record is one request. Key aliases the reader's buffers and is valid
// until the next call to Read: copy it to keep it.
type Record struct {
	// Time is nanoseconds since the trace's first request.
	Time int64
	// Op is the request: get, set or delete.
	Op rdmakv.Op
	// Key is the key as recorded (Twitter's are anonymized).
	Key []byte
	// KeySize is the key's size in bytes as recorded: Twitter's is the
	// original key's, which anonymization changes, so it need not be
	// len(Key); the kvbench format's is len(Key).
	KeySize int
	// ValueSize is the value's size in bytes: what a set writes, what a get
	// found (0 for a miss in Twitter's traces).
	ValueSize int
	// Client is the recorded client (Twitter's anonymized client id), 0
	// where the format has none.
	Client uint32
	// Line is the record's line in the file, from 1.
	Line int64
}

// Error is a problem at one line of a trace.
type Error struct {
	File string
	// Line is the line, from 1; 0 for a problem with the whole file.
	Line int64
	Msg  string
	// Err is the underlying error of a failed read, nil for a malformed
	// line.
	Err error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Reader reads a trace's records in file order.
type Reader struct {
	name   string
	format Format
	closer io.Closer // the file Open opened, nil for NewReader
	dec    *zstd.Decoder
	br     *bufio.Reader
	line   int64 // lines read so far
	fatal  *Error

	tw twitterState
	kv kvbenchState
}

// Open opens the trace at path, plain or zstd-compressed. Close it.
func Open(path string, format Format) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, path, format)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads a trace from src, plain or zstd-compressed; name is the
// file name errors give. Close releases the decoder (not src).
func NewReader(src io.Reader, name string, format Format) (*Reader, error) {
	r := &Reader{name: name, format: format}
	if _, err := ParseFormat(string(format)); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(src, MaxLine)
	magic, err := br.Peek(len(zstdMagic))
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, &Error{File: name, Msg: "read: " + err.Error(), Err: err}
	}
	if bytes.Equal(magic, zstdMagic) {
		dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(2), zstd.WithDecoderMaxWindow(MaxWindow))
		if err != nil {
			return nil, &Error{File: name, Msg: "zstd: " + err.Error(), Err: err}
		}
		r.dec = dec
		br = bufio.NewReaderSize(dec, MaxLine)
	}
	r.br = br
	if format == Auto {
		r.format = detect(br)
	}
	return r, nil
}

// Detect is the format of the trace at path, as Auto reads it.
func Detect(path string) (Format, error) {
	r, err := Open(path, Auto)
	if err != nil {
		return Auto, err
	}
	defer r.Close()
	return r.format, nil
}

// detect tells a trace's format from its first line that is neither
// blank nor a comment: kvbench's header, else Twitter's, whose lines have
// no header. A failed read is left for Read to report.
func detect(br *bufio.Reader) Format {
	head, _ := br.Peek(MaxLine)
	for len(head) > 0 {
		line, rest, _ := bytes.Cut(head, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > 0 && line[0] != '#' {
			if string(line) == KvbenchHeader {
				return Kvbench
			}
			return Twitter
		}
		head = rest
	}
	return Twitter
}

// Name is the file name errors give.
func (r *Reader) Name() string { return r.name }

// Format is the format being read.
func (r *Reader) Format() Format { return r.format }

// Read reads the next record into rec, or returns io.EOF after the last.
// An *Error for a malformed line leaves the reader usable: the next call
// reads on. A failed read is returned by every later call. On an error
// rec is left as it was.
func (r *Reader) Read(rec *Record) error {
	if r.format == Twitter {
		return r.nextTwitter(rec)
	}
	return r.nextKvbench(rec)
}

// Close releases the reader's decoder and closes the file Open opened.
func (r *Reader) Close() error {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	if r.closer != nil {
		err := r.closer.Close()
		r.closer = nil
		return err
	}
	return nil
}

// errorf is a problem at line n.
func (r *Reader) errorf(n int64, format string, args ...any) *Error {
	return &Error{File: r.name, Line: n, Msg: fmt.Sprintf(format, args...)}
}

// errTooLong marks a line longer than MaxLine; readLine has skipped it.
var errTooLong = errors.New("line too long")

// readLine returns the next line that is neither blank nor a comment
// (starting with '#'), without its line ending, aliasing the reader's
// buffer until the next call. It returns io.EOF at the end, errTooLong for
// a line longer than MaxLine (which it skips), and sets r.fatal and
// returns it when the read fails.
func (r *Reader) readLine() ([]byte, error) {
	if r.fatal != nil {
		return nil, r.fatal
	}
	for {
		b, err := r.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			r.line++
			for err == bufio.ErrBufferFull {
				_, err = r.br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, r.fail(err)
			}
			return nil, errTooLong
		}
		if len(b) > 0 {
			r.line++
		}
		if err != nil && err != io.EOF {
			return nil, r.fail(err)
		}
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		b = trimEOL(b)
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		return b, nil
	}
}

// fail records a failed read at the current line.
func (r *Reader) fail(err error) *Error {
	msg := "read: " + err.Error()
	if r.dec != nil {
		msg = "read (zstd): " + err.Error()
	}
	r.fatal = &Error{File: r.name, Line: r.line + 1, Msg: msg, Err: err}
	return r.fatal
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// tooLong is the message for a line longer than MaxLine.
func (r *Reader) tooLong() *Error {
	return r.errorf(r.line, "line longer than %d bytes", MaxLine)
}

// parseUint reads a decimal integer of digits only, at most max.
func parseUint(b []byte, max uint64) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	// Up to 19 digits cannot overflow a uint64: the check against max is
	// then one comparison at the end, not a division per digit.
	var v uint64
	for i, c := range b {
		d := uint64(c) - '0'
		if d > 9 || i == 19 && v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, v <= max
}

// quote shows a field in a message, shortened.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
