package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvbench/kvbench/internal/results"
)

// Load reads a run's results.json. path is the run directory or the
// results.json file itself. The returned directory is where the run's
// interval logs are resolved from.
func Load(path string) (run *results.Run, dir string, err error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, "", fmt.Errorf("results: %w", err)
	} else if st.IsDir() {
		file = filepath.Join(path, results.ResultsFile)
	}
	dir = filepath.Dir(file)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("results: %w", err)
	}
	run, err = Decode(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", file, err)
	}
	return run, dir, nil
}

// Decode parses results.json (results.Decode) and checks the cell fields
// every analysis relies on, so the commands need not re-check them.
func Decode(data []byte) (*results.Run, error) {
	run, err := results.Decode(data)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("line %d col %d: %w", line, col, err)
		}
		return nil, err
	}
	var errs []error
	for i, c := range run.Cells {
		if c.Op == "" {
			errs = append(errs, fmt.Errorf("cells[%d]: op is empty", i))
		}
		if c.ValueSize < 0 {
			errs = append(errs, fmt.Errorf("cells[%d]: value_size %d is negative", i, c.ValueSize))
		}
		if c.Threshold < 0 {
			errs = append(errs, fmt.Errorf("cells[%d]: threshold %d is negative", i, c.Threshold))
		}
		if c.Count < 0 {
			errs = append(errs, fmt.Errorf("cells[%d]: count %d is negative", i, c.Count))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return run, nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
