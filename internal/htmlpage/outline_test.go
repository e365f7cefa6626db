package htmlpage

import (
	"bytes"
	"testing"
)

func TestOutlineKeepsTheStructureOnly(t *testing.T) {
	p := &Page{Title: "t"}
	p.Add("cells", "Cells & more", Para("12 µs"),
		Table([]string{"op", "p50"}, [][]Cell{{T("get"), N("12 µs")}}))
	svg, err := SVG([]byte(`<svg width="1" height="1"></svg>`), "a figure")
	if err != nil {
		t.Fatal(err)
	}
	p.Add("raw", "Raw", Link("results.json", "results"), Facts([2]string{"seed", "7"}), svg)
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Outline(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := "section cells\n  h2: Cells & more\n  table: op | p50\nsection raw\n  h2: Raw\n  dt: seed\n  figcaption: a figure\n"
	if got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	if _, err := Outline([]byte("<!DOCTYPE html><html><p></html>")); err == nil {
		t.Error("Outline took a page left open")
	}
}
