package plot

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestThresholdMapModel(t *testing.T) {
	sizes := []int{64, 1024, 16384}
	cells := [][]MapCell{
		{{Winner: "eager", Ratio: 0.2}, {Winner: "eager", Ratio: 0.5}},
		{{Winner: "eager", Ratio: 0.8}, {Winner: "rendezvous", Ratio: 1.5}},
		{{Winner: "tie", Ratio: 1.01}, {Winner: "rendezvous", Ratio: 9}},
	}
	// 1 KiB values with 16-byte keys go rendezvous at a 1 KiB threshold;
	// 32 KiB sends all three eager: no line.
	f, err := ThresholdMap("get", "p50", sizes, []string{"1 connection", "16 connections"}, cells, []int{32768, 1024}, 16)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Panels[0]
	if f.Name != "tune-map-get" || len(p.Tiles) != 6 {
		t.Fatalf("%s: %d tiles", f.Name, len(p.Tiles))
	}
	if len(p.Markers) != 1 || p.Markers[0] != 0.5 {
		t.Errorf("threshold lines at %v, want one below row 1", p.Markers)
	}
	byPos := map[[2]int]Tile{}
	for _, tl := range p.Tiles {
		byPos[[2]int{tl.Row, tl.Col}] = tl
	}
	if c := byPos[[2]int{2, 0}].Color; c != tieColor {
		t.Errorf("tie colour %v", c)
	}
	// A wider margin is a deeper colour: further from white.
	depth := func(c color.Color) uint32 { r, g, b, _ := c.RGBA(); return 3*0xffff - r - g - b }
	if weak, strong := byPos[[2]int{1, 1}].Color, byPos[[2]int{2, 1}].Color; depth(weak) >= depth(strong) {
		t.Errorf("ratio 1.5 drawn as deep as 9: %v %v", weak, strong)
	}
	if _, err := f.Save(t.TempDir(), 400, 300, "png"); err != nil {
		t.Fatal(err)
	}
}

func TestCaptionIsDrawn(t *testing.T) {
	f, err := ThresholdMap("get", "p50", []int{64}, []string{"1 connection"}, [][]MapCell{{{Winner: "eager", Ratio: 0.5}}}, []int{0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f.Caption = "kvbench devel abc1234, protocol 5"
	if _, err := f.Save(dir, 400, 300, "svg"); err != nil {
		t.Fatal(err)
	}
	if !fileContains(t, filepath.Join(dir, "tune-map-get.svg"), "kvbench devel abc1234, protocol 5") {
		t.Error("the SVG lacks the caption")
	}
}

func fileContains(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), s)
}
