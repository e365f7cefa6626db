package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/trace"
)

// sizesPath is where the value-size histogram of the workload at out goes:
// beside it, named after it (fit.yaml: fit.sizes.csv).
func sizesPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".sizes.csv"
}

// refuseOverwrite fails on the first of paths that exists, unless force.
func refuseOverwrite(force bool, paths ...string) error {
	if force {
		return nil
	}
	for _, p := range paths {
		_, err := os.Stat(p)
		if err == nil {
			return fmt.Errorf("%s exists: give --force to overwrite it", p)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// writeFitted writes the workload fitted to s at out and its value sizes
// beside it, each atomically, and returns the paths written.
func writeFitted(s *trace.Summary, out string, force bool) ([]string, error) {
	csv := sizesPath(out)
	if err := refuseOverwrite(force, out, csv); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	f, err := trace.FitWorkload(s, name, filepath.Base(csv))
	if err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(csv, f.Sizes); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(out, f.YAML); err != nil {
		return []string{csv}, err
	}
	return []string{out, csv}, nil
}
