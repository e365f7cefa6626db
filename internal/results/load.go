package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Load reads results.json from run directory dir.
func Load(dir string) (*Run, error) {
	file := filepath.Join(dir, ResultsFile)
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return r, nil
}

// Decode parses results.json. Unknown fields are accepted so that older
// readers can open files with additions; a newer schema version is refused.
func Decode(b []byte) (*Run, error) {
	var r Run
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&r); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after the JSON document")
	}
	if r.SchemaVersion < 1 || r.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("schema_version %d not supported (this kvbench reads 1..%d)", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
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
