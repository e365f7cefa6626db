package trace

import (
	"errors"
	"io"
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
func ValidateReader(r *Reader, max int) Problems {
	var p Problems
	for {
		_, err := r.Next()
		if err == nil {
			p.Records++
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
}
