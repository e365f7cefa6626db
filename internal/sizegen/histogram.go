package sizegen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kvbench/kvbench/internal/units"
)

// ReadHistogram reads a measured size histogram, one "size,count" line a
// bucket, and returns the weighted generator that draws each size with
// probability count/total. Sizes take units as workloads write them
// ("4096", "4KiB"); counts are integers >= 0. Blank lines, lines starting
// with '#' and a first line "size,count" are skipped.
//
// Every problem is reported, joined, each an *Error naming its line.
func ReadHistogram(r io.Reader) (*WeightedGen, error) {
	var (
		errs  []error
		ws    []Weight
		first = map[int]int{} // size -> line it was first given on
		seen  bool            // a non-comment line was read
	)
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &Error{Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		header := !seen
		seen = true
		fields := strings.Split(text, ",")
		if len(fields) != 2 {
			fail(line, "want size,count, got %d fields", len(fields))
			continue
		}
		sf, cf := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		if header && strings.EqualFold(sf, "size") && strings.EqualFold(cf, "count") {
			continue
		}
		size, err := units.ParseBytes(sf)
		switch {
		case err != nil:
			fail(line, "%v", err)
		case size < 0:
			fail(line, "size %s is negative", sf)
		}
		count, cerr := strconv.ParseUint(cf, 10, 64)
		if cerr != nil {
			fail(line, "count %q: want an integer >= 0", cf)
		}
		if err != nil || size < 0 || cerr != nil {
			continue
		}
		if at, dup := first[int(size)]; dup {
			fail(line, "size %s listed again (first at line %d)", units.ExactBytes(size), at)
			continue
		}
		first[int(size)] = line
		ws = append(ws, Weight{Size: int(size), Weight: float64(count)})
	}
	if err := sc.Err(); err != nil {
		fail(line+1, "%v", err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(ws) == 0 {
		return nil, &Error{Msg: "no sizes: want size,count lines"}
	}
	g, err := NewWeighted(ws)
	if err != nil { // sizes and counts are valid, so only their sum can be wrong
		return nil, &Error{Msg: strings.TrimPrefix(err.Error(), "sizegen: ")}
	}
	return g, nil
}
