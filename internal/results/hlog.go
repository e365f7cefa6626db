package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// HlogName is a cell's interval log path relative to the run directory:
// t4096-v64-get-eager.hlog for rdmakv's, a baseline's after its store
// (redis-t0-v64-get-eager.hlog), so that no two stores' logs share a
// name. Readers go by Cell.Hlog, so the logs of runs recorded under
// older names (t0-v64-get-redis.hlog) still read.
func HlogName(c Cell) string {
	name := fmt.Sprintf("t%d-v%d-%s-%s.hlog", c.Threshold, c.ValueSize, c.Op, c.Protocol)
	if c.Baseline() {
		name = c.Store + "-" + name
	}
	return path.Join(HlogDir, name)
}

// EncodeHlog renders interval histograms in the HdrHistogram interval log
// format (version 1.3). Each histogram's StartTimeMs/EndTimeMs must be
// absolute (ms since the epoch); start is the phase start. Timestamps in the
// log are relative to BaseTime, which is start rounded down to a whole second
// because the format's BaseTime header carries whole seconds only.
func EncodeHlog(comment string, start time.Time, intervals []*hdrhistogram.Histogram) ([]byte, error) {
	var buf bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&buf)
	startMs := start.UnixMilli()
	baseMs := startMs - startMs%1000
	lw.SetBaseTime(baseMs)
	steps := []func() error{
		lw.OutputLogFormatVersion,
		func() error {
			if comment == "" {
				return nil
			}
			return lw.OutputComment(comment)
		},
		func() error { return lw.OutputStartTime(startMs) },
		func() error { return lw.OutputBaseTime(baseMs) },
		lw.OutputLegend,
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return nil, err
		}
	}
	for _, h := range intervals {
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return nil, fmt.Errorf("hlog interval: %w", err)
		}
	}
	return buf.Bytes(), nil
}

// WriteHlog writes an interval log atomically.
func WriteHlog(file, comment string, start time.Time, intervals []*hdrhistogram.Histogram) error {
	b, err := EncodeHlog(comment, start, intervals)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return WriteFileAtomic(file, b)
}

// DecodeHlog reads every interval histogram from an interval log, with
// absolute start and end times restored.
func DecodeHlog(r io.Reader) ([]*hdrhistogram.Histogram, error) {
	lr := hdrhistogram.NewHistogramLogReader(r)
	var out []*hdrhistogram.Histogram
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return out, err
		}
		if h == nil {
			return out, nil
		}
		out = append(out, h)
	}
}

// ReadHlog reads an interval log file.
func ReadHlog(file string) ([]*hdrhistogram.Histogram, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hs, err := DecodeHlog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return hs, nil
}

// CellIntervals reads a cell's interval histograms from run directory dir.
func CellIntervals(dir string, c Cell) ([]*hdrhistogram.Histogram, error) {
	if c.Hlog == "" {
		return nil, fmt.Errorf("cell %s has no interval log", c.Name())
	}
	return ReadHlog(filepath.Join(dir, filepath.FromSlash(c.Hlog)))
}

// CellHlogMerged reads a cell's interval log and merges its intervals into
// one histogram; its counts equal the cell's Histogram.
func CellHlogMerged(dir string, c Cell) (*hdrhistogram.Histogram, error) {
	hs, err := CellIntervals(dir, c)
	if err != nil {
		return nil, err
	}
	m := NewHistogram()
	for _, h := range hs {
		if dropped := m.Merge(h); dropped != 0 {
			return nil, fmt.Errorf("%s: %d values outside the histogram range", c.Hlog, dropped)
		}
	}
	return m, nil
}
