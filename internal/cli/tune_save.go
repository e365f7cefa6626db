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
	tuneHTMLFile = "tune.html"
)

// saveTune writes res, a tune of ran's workload, into dir as run writes
// a run directory, each file atomically: tune.json and tune.txt as report
// renders them, profile.json when the tune found a threshold, tune.html
// linking those, then the figures plot draws (PNG and SVG). It returns
// the paths written.
func saveTune(dir string, ran report.TuneRan, res *tune.Result) ([]string, error) {
	var paths []string
	for _, f := range tuneFiles(ran, res) {
		var b bytes.Buffer
		if err := f.render(&b); err != nil {
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

// tuneFile is a file of a tune directory and what renders it.
type tuneFile struct {
	name   string
	render func(io.Writer) error
}

// tuneFiles are the files saveTune writes before the figures, the page
// last, linking the others.
func tuneFiles(ran report.TuneRan, res *tune.Result) []tuneFile {
	files := []tuneFile{
		{tuneJSONFile, func(w io.Writer) error { return report.TuneJSON(w, res) }},
		{tuneTextFile, func(w io.Writer) error { return report.Tune(w, res) }},
	}
	if res.Profile(ran.Workload) != nil {
		files = append(files, tuneFile{tune.ProfileFile, func(w io.Writer) error { return report.TuneProfile(w, res, ran.Workload) }})
	}
	for _, f := range files {
		ran.Files = append(ran.Files, f.name)
	}
	return append(files, tuneFile{tuneHTMLFile, func(w io.Writer) error { return report.TuneHTML(w, res, ran) }})
}
