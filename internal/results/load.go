package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Open reads a run's results.json; path is the run directory or the
// results.json file itself. dir is where the run's interval logs are
// resolved from.
func Open(path string) (run *Run, dir string, err error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return nil, "", fmt.Errorf("results: %w", err)
	} else if st.IsDir() {
		file = filepath.Join(path, ResultsFile)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("results: %w", err)
	}
	run, err = Decode(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", file, err)
	}
	return run, filepath.Dir(file), nil
}

// Load reads results.json from run directory dir (see Open).
func Load(dir string) (*Run, error) {
	run, _, err := Open(dir)
	return run, err
}

// Decode parses results.json and checks the cell fields every analysis
// relies on, so readers need not check them again. Unknown fields are
// accepted so that older readers can open files with additions; a newer
// schema version is refused. A syntax error says its line and column.
func Decode(b []byte) (*Run, error) {
	var r Run
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&r); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(b, se.Offset)
			return nil, fmt.Errorf("line %d col %d: %w", line, col, err)
		}
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the JSON document")
	}
	if r.SchemaVersion < 1 || r.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("schema_version %d not supported (this kvbench reads 1..%d)", r.SchemaVersion, SchemaVersion)
	}
	r.upgradeStores()
	if err := r.checkCells(); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkCells reports every cell field no reader could make sense of.
func (r *Run) checkCells() error {
	var errs []error
	for i, c := range r.Cells {
		if c.Op == "" {
			errs = append(errs, fmt.Errorf("cells[%d]: op is empty", i))
		}
		if c.ValueSize < 0 {
			errs = append(errs, fmt.Errorf("cells[%d]: value_size %d is negative", i, c.ValueSize))
		}
		if c.Threshold < 0 && (c.Threshold != AdaptiveThreshold || c.Policy != PolicyAdaptive) {
			errs = append(errs, fmt.Errorf("cells[%d]: threshold %d is negative (only an adaptive cell's is -1)", i, c.Threshold))
		}
		if c.Count < 0 {
			errs = append(errs, fmt.Errorf("cells[%d]: count %d is negative", i, c.Count))
		}
		if c.CPU != nil {
			if err := c.CPU.check(c.Count); err != nil {
				errs = append(errs, fmt.Errorf("cells[%d]: %w", i, err))
			}
		}
		if c.Adaptive != nil {
			if err := c.Adaptive.check(); err != nil {
				errs = append(errs, fmt.Errorf("cells[%d]: %w", i, err))
			}
		}
	}
	return errors.Join(errs...)
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

// Encode renders results.json.
func (r *Run) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode results: %w", err)
	}
	return append(b, '\n'), nil
}

// Save writes results.json atomically into dir.
func (r *Run) Save(dir string) error {
	b, err := r.Encode()
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, ResultsFile), b)
}
