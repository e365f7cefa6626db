package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// DefaultParent is where run directories go unless -o names another place.
const DefaultParent = "results"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// DirName is the run directory's base name: <workload>-<YYYYmmdd-HHMMSS> in
// UTC. Characters that are awkward in paths are replaced by '_'.
func DirName(workload string, t time.Time) string {
	name := unsafeName.ReplaceAllString(workload, "_")
	if name == "" {
		name = "run"
	}
	return name + "-" + t.UTC().Format("20060102-150405")
}

// CreateRunDir makes a new run directory under parent, with its empty
// interval-log directory, and returns its path (see CreateDir).
func CreateRunDir(parent, workload string, t time.Time) (string, error) {
	dir, err := CreateDir(parent, workload, t)
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(filepath.Join(dir, HlogDir), 0o755); err != nil {
		return "", fmt.Errorf("results directory: %w", err)
	}
	return dir, nil
}

// CreateDir makes a new directory named DirName(workload, t) under parent
// and returns its path. An existing directory is never reused: the name
// gets -2, -3, ... until os.Mkdir succeeds, so two runs started in the same
// second (or a clock that went backwards) cannot overwrite each other.
func CreateDir(parent, workload string, t time.Time) (string, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("results directory: %w", err)
	}
	base := DirName(workload, t)
	for i := 1; i < 10000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		dir := filepath.Join(parent, name)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("results directory: %w", err)
		}
	}
	return "", fmt.Errorf("results directory: too many runs named %s in %s", base, parent)
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader (or a crash) sees either the old file
// or the complete new one, never a prefix.
func WriteFileAtomic(path string, data []byte) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
