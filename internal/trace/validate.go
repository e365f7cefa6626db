package trace

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Problems is what Validate found.
type Problems struct {
	// First are the first problems in file order, at most the max given
	// to Validate.
	First []*Error
	// Count is every problem found, First included.
	Count int64
	// Records is how many well-formed records the trace holds.
	Records int64
}

// Validate reads the whole trace at path and returns its first max
// problems (max < 0: all of them) and how many there are. A failed read
// ends the scan and is counted as the last problem; an error is returned
// only when the file cannot be opened.
func Validate(path string, format Format, max int) (Problems, error) {
	r, err := Open(path, format)
	if err != nil {
		return Problems{}, err
	}
	defer r.Close()
	return ValidateReader(r, max), nil
}

// ValidateReader is Validate over an open reader, read to its end.
func ValidateReader(r *Reader, max int) Problems { return Scan(r, max, 0, nil) }

// Scan is ValidateReader stopping after line lines (<= 0: at the end),
// handing each well-formed record to each (nil: none) as it goes.
func Scan(r *Reader, max int, lines int64, each func(*Record)) Problems {
	var p Problems
	for lines <= 0 || r.line < lines {
		var rec Record
		err := r.Read(&rec)
		if err == nil {
			p.Records++
			if each != nil {
				each(&rec)
			}
			continue
		}
		if err == io.EOF {
			return p
		}
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{File: r.name, Line: r.line, Msg: err.Error(), Err: err}
		}
		p.Count++
		if max < 0 || len(p.First) < max {
			p.First = append(p.First, e)
		}
		if e == r.fatal {
			return p
		}
	}
	return p
}

// Text lists the problems one a line, then how many more there are.
func (p Problems) Text() string {
	var b strings.Builder
	for _, e := range p.First {
		b.WriteString(e.Error())
		b.WriteByte('\n')
	}
	if more := p.Count - int64(len(p.First)); more > 0 {
		fmt.Fprintf(&b, "... and %d more\n", more)
	}
	return b.String()
}
