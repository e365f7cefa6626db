package workload

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// FieldError is one problem in a workload, located in its file (or naming
// the flag that set the field). LoadFile, Parse and Validate return every
// problem as FieldErrors joined with errors.Join; errors.As finds them.
type FieldError struct {
	File string // file name as given to Parse or Load
	Line int    // 1-based; 0 when the field is not in the file
	Col  int    // 1-based
	Flag string // set when a command-line flag supplied the field: "--depth"
	Path string // dotted field path: "keys.count", "values.sizes[2]"
	Msg  string
}

func (e *FieldError) Error() string {
	var where string
	switch {
	case e.Flag != "":
		where = "flag " + e.Flag + ": "
	case e.Line > 0 && e.Col > 0:
		where = fmt.Sprintf("%s:%d:%d: ", e.File, e.Line, e.Col)
	case e.Line > 0:
		where = fmt.Sprintf("%s:%d: ", e.File, e.Line)
	case e.File != "":
		where = e.File + ": "
	}
	if e.Path == "" {
		return where + e.Msg
	}
	return where + e.Path + ": " + e.Msg
}

// join sorts problems by position so that output follows the file.
func join(errs []*FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *FieldError) int {
		return cmp.Or(cmp.Compare(a.Flag, b.Flag), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return errors.Join(out...)
}
