package htmlpage

import (
	"bytes"
	"testing"
)

func TestOutlineKeepsSectionsAndHeadersOnly(t *testing.T) {
	p := &Page{Title: "t"}
	p.Add("cells", "Cells & more", Para("12 µs"),
		Table([]string{"op", "p50"}, [][]Cell{{T("get"), N("12 µs")}}))
	p.Add("raw", "Raw", Link("results.json", "results"))
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Outline(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := "section cells: Cells & more\n  table: op | p50\nsection raw: Raw\n"
	if got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	if _, err := Outline([]byte("<!DOCTYPE html><html><p></html>")); err == nil {
		t.Error("Outline took a page left open")
	}
}
