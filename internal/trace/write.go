package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/kvbench/kvbench/rdmakv"
)

// Writer writes a trace in the kvbench format (KvbenchHeader), one
// request a line as it is given: streaming, its memory does not grow with
// the trace.
type Writer struct {
	bw   *bufio.Writer
	enc  *zstd.Encoder // nil for plain text
	file *os.File      // the temporary file Create made, nil for NewWriter
	path string        // where Close puts file
	prev int64
	n    int64
	line []byte
	err  error
}

// Create writes a trace to path, zstd-compressed when the name ends in
// .zst. The trace goes to a temporary file beside it, which Close renames
// to path (replacing any file there) and Abort removes, so that path never
// holds half a trace.
func Create(path string) (*Writer, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, strings.HasSuffix(path, ".zst"))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	w.file, w.path = f, path
	return w, nil
}

// NewWriter writes a trace to dst, zstd-compressed if compress. Close
// flushes it (and does not close dst).
func NewWriter(dst io.Writer, compress bool) (*Writer, error) {
	w := &Writer{}
	out := dst
	if compress {
		enc, err := zstd.NewWriter(dst, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		w.enc, out = enc, enc
	}
	w.bw = bufio.NewWriterSize(out, 64<<10)
	_, w.err = w.bw.WriteString(KvbenchHeader + "\n")
	return w, nil
}

// Write adds a request at time ns (never before the last's) of op on key
// with a value of size bytes.
func (w *Writer) Write(ns int64, op rdmakv.Op, key []byte, size int) error {
	if w.err != nil {
		return w.err
	}
	var err error
	switch {
	case op < rdmakv.OpGet || op > rdmakv.OpDelete:
		err = fmt.Errorf("op %d: want get, set or delete", op)
	case ns < w.prev:
		err = fmt.Errorf("time %d ns is before the previous request's %d", ns, w.prev)
	case len(key) == 0:
		err = errors.New("empty key")
	case bytes.ContainsAny(key, "\r\n"):
		err = fmt.Errorf("key %s holds a line break", quote(key))
	case size < 0 || int64(size) > 1<<32-1:
		err = fmt.Errorf("value size %d: want 0 to %d", size, uint32(1<<32-1))
	}
	if err != nil {
		return fmt.Errorf("request %d: %w", w.n+1, err)
	}
	b := strconv.AppendInt(w.line[:0], ns, 10)
	b = append(append(append(b, ','), op.String()...), ',')
	b = append(append(b, key...), ',')
	b = append(strconv.AppendInt(b, int64(size), 10), '\n')
	w.line = b
	w.prev = ns
	w.n++
	_, w.err = w.bw.Write(b)
	return w.err
}

// Count is how many requests were written.
func (w *Writer) Count() int64 { return w.n }

// Close flushes the trace and, for Create, puts its file in place; the
// first error met is returned, and then the file is removed.
func (w *Writer) Close() error {
	err := w.err
	if e := w.bw.Flush(); err == nil {
		err = e
	}
	if w.enc != nil {
		if e := w.enc.Close(); err == nil {
			err = e
		}
	}
	if w.file == nil {
		return err
	}
	f := w.file
	w.file = nil
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), w.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort drops a trace Create began: its temporary file is removed and
// path left as it was.
func (w *Writer) Abort() {
	if w.enc != nil {
		w.enc.Close()
	}
	if w.file != nil {
		w.file.Close()
		os.Remove(w.file.Name())
		w.file = nil
	}
}
