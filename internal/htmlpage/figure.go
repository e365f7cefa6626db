package htmlpage

import (
	"fmt"
	"html/template"
	"path/filepath"

	"github.com/kvbench/kvbench/internal/plot"
)

// Figure is f inline, at the size kvbench plot saves it and captioned
// with its name, the file plot writes it as.
func Figure(f *plot.Figure) (template.HTML, error) {
	svg, err := f.SVG(plot.DefaultWidthPx, f.Height(plot.DefaultHeightPx))
	if err != nil {
		return "", fmt.Errorf("figure %s: %w", f.Name, err)
	}
	return SVG(svg, f.Name)
}

// Rel is path as a link from a page in dir needs it: relative, with
// slashes.
func Rel(dir, path string) (string, error) {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ad, ap)
	return filepath.ToSlash(rel), err
}
