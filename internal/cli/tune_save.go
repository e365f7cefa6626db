package cli

import (
	"bytes"
	"io"
	"path/filepath"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

// The files of a tune directory beside its figures.
const (
	tuneJSONFile = "tune.json"
	tuneTextFile = "tune.txt"
)

// saveTune writes res into dir as run writes a run directory, each file
// atomically: tune.json and tune.txt as report renders them, then the
// figures plot draws (PNG and SVG). It returns the paths written.
func saveTune(dir string, res *tune.Result) ([]string, error) {
	var paths []string
	for _, f := range []struct {
		name   string
		render func(io.Writer, *tune.Result) error
	}{{tuneJSONFile, report.TuneJSON}, {tuneTextFile, report.Tune}} {
		var b bytes.Buffer
		if err := f.render(&b, res); err != nil {
			return paths, err
		}
		path := filepath.Join(dir, f.name)
		if err := results.WriteFileAtomic(path, b.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	figs, err := plot.SaveTune(res, dir)
	return append(paths, figs...), err
}
