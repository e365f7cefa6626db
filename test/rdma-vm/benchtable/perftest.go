package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// perftestRow is one result line of a perftest report, keyed by column
// name as the header spells it ("t_typical[usec]", "BW average[MB/sec]").
type perftestRow struct {
	Bytes  int64
	Values map[string]float64
}

// Column names read from perftest reports.
const (
	colTypicalUsec = "t_typical[usec]"
	colBWAverage   = "BW average[MB/sec]" // perftest's MB is 2^20 bytes
)

// parsePerftest reads the result rows of a perftest client report. The
// header names columns with embedded spaces ("BW average[MB/sec]",
// "99% percentile[usec]") while "#bytes #iterations" are separated by one
// space only, so columns are rebuilt from the bracket suffixes rather than
// by splitting on wide gaps.
func parsePerftest(r io.Reader) ([]perftestRow, error) {
	var cols []string
	var rows []perftestRow
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "#bytes" {
			cols = headerColumns(fields)
			continue
		}
		if cols == nil {
			continue
		}
		bytes, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			// A separator or trailer: the table has ended.
			cols = nil
			continue
		}
		if len(fields) < len(cols) {
			return nil, fmt.Errorf("line %d: %d values for %d columns", line, len(fields), len(cols))
		}
		row := perftestRow{Bytes: bytes, Values: make(map[string]float64, len(cols))}
		for i, c := range cols {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: column %s: %v", line, c, err)
			}
			row.Values[c] = v
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no result rows (no \"#bytes\" table)")
	}
	return rows, nil
}

// headerColumns joins header words into column names: a word that neither
// starts a "#name" nor carries a "[unit]" belongs to the word after it.
func headerColumns(words []string) []string {
	var cols []string
	pending := ""
	for _, w := range words {
		if pending != "" {
			w = pending + " " + w
			pending = ""
		}
		if strings.HasPrefix(w, "#") || strings.Contains(w, "[") {
			cols = append(cols, w)
			continue
		}
		pending = w
	}
	if pending != "" {
		cols = append(cols, pending)
	}
	return cols
}

// perftestValues is column col of the rows for message size bytes, one
// value per round in file order: a report file holds one row per round.
func perftestValues(rows []perftestRow, bytes int64, col string) (series, error) {
	var vals series
	for _, r := range rows {
		if r.Bytes != bytes {
			continue
		}
		v, ok := r.Values[col]
		if !ok {
			return nil, fmt.Errorf("no column %q", col)
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("no row for %d bytes", bytes)
	}
	return vals, nil
}
