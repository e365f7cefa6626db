package results

import (
	"path/filepath"
	"strings"
	"testing"
)

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
	if _, _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
}
