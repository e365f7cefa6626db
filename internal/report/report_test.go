package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/golden"
)

func TestGolden(t *testing.T) {
	run, _, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	// Listed here, not taken from Formats, so a format that goes missing
	// fails the test instead of dropping out of it.
	want := []string{"table", "markdown", "csv", "json"}
	if !slices.Equal(Formats, want) {
		t.Errorf("Formats = %v, want %v", Formats, want)
	}
	for _, format := range want {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, run, format); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, buf.String(), "report."+format+".golden")
		})
	}
}

func TestRowsOrderAndErrors(t *testing.T) {
	run, _, err := Load("testdata/results.json")
	if err != nil {
		t.Fatal(err)
	}
	rows := Rows(run)
	var got []string
	for _, r := range rows {
		got = append(got, r.Op+"/"+Bytes(int64(r.ValueSize))+"/"+Bytes(int64(r.Threshold)))
	}
	want := "get/64B/4KiB get/4KiB/0B get/4KiB/8KiB get/1MiB/4KiB set/64B/4KiB"
	if strings.Join(got, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(got, " "), want)
	}
	if rows[3].Errors != 2 {
		t.Errorf("errors summed to %d, want 2", rows[3].Errors)
	}
}

func TestUnknownFormat(t *testing.T) {
	run, _, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	err = Write(&bytes.Buffer{}, run, "xml")
	if err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("err = %v, want unknown format naming xml", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]string{
		"{\n  \"schema_version\": 1,\n  \"cells\": [}\n":                 "line 3",
		`{"schema_version": 99}`:                                         "schema_version 99",
		`{"schema_version": 1, "cells": [{"op": "", "value_size": -1}]}`: "cells[0]: op is empty",
	}
	for in, want := range cases {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want error containing %q", in, err, want)
		}
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Load of a missing directory succeeded")
	}
}

func TestUnits(t *testing.T) {
	cases := []struct{ got, want string }{
		{Bytes(64), "64B"}, {Bytes(1024), "1KiB"}, {Bytes(1536), "1.5KiB"}, {Bytes(1 << 20), "1MiB"},
		{Bytes(0), "0B"}, {Duration(850), "850ns"}, {Duration(1250), "1.25µs"}, {Duration(12300000), "12.3ms"},
		{Duration(2e9), "2s"}, {Rate(950), "950"}, {Rate(12345), "12.3k"}, {MiB(3 << 20), "3"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	data, err := os.ReadFile("testdata/results.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"schema_version":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		run, err := Decode(b)
		if err != nil {
			return
		}
		for _, format := range Formats {
			if err := Write(&bytes.Buffer{}, run, format); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
		}
	})
}
