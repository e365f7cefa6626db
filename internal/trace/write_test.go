package trace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// What a Writer writes, plain or zstd, reads back as it was given.
func TestWriterRoundTrip(t *testing.T) {
	want := []Record{
		{Time: 0, Op: rdmakv.OpSet, Key: []byte("k1"), ValueSize: 4096},
		{Time: 0, Op: rdmakv.OpGet, Key: []byte("k,1"), ValueSize: 4096},
		{Time: 1500, Op: rdmakv.OpDelete, Key: []byte("k1"), ValueSize: 0},
		{Time: 1 << 40, Op: rdmakv.OpGet, Key: []byte("k2"), ValueSize: 1<<32 - 1},
	}
	for _, name := range []string{"t.csv", "t.csv.zst"} {
		path := filepath.Join(t.TempDir(), name)
		w, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range want {
			if err := w.Write(r.Time, r.Op, r.Key, r.ValueSize); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if zst := bytes.HasPrefix(data, zstdMagic); zst != strings.HasSuffix(name, ".zst") {
			t.Errorf("%s: compressed %v", name, zst)
		}
		r, err := Open(path, Kvbench)
		if err != nil {
			t.Fatal(err)
		}
		for i, wr := range want {
			var got Record
			err := r.Read(&got)
			if err != nil {
				t.Fatalf("%s: record %d: %v", name, i, err)
			}
			if got.Time != wr.Time || got.Op != wr.Op || string(got.Key) != string(wr.Key) || got.ValueSize != wr.ValueSize {
				t.Errorf("%s: record %d %+v, want %+v", name, i, got, wr)
			}
		}
		if err := r.Read(&Record{}); err != io.EOF {
			t.Errorf("%s: after the last record: %v", name, err)
		}
		r.Close()
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Errorf("%s: %d files left beside it", name, len(entries))
		}
	}
}

// A request the format cannot hold is refused, naming it; an aborted
// trace leaves nothing behind.
func TestWriterRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(10, rdmakv.OpGet, []byte("k"), 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ns   int64
		op   rdmakv.Op
		key  string
		size int
		want string
	}{
		{5, rdmakv.OpGet, "k", 1, "request 2: time 5 ns is before the previous request's 10"},
		{10, 0, "k", 1, "request 2: op 0"},
		{10, rdmakv.OpGet, "", 1, "request 2: empty key"},
		{10, rdmakv.OpGet, "a\nb", 1, "request 2: key \"a\\nb\" holds a line break"},
		{10, rdmakv.OpSet, "k", -1, "request 2: value size -1"},
	} {
		if err := w.Write(tc.ns, tc.op, []byte(tc.key), tc.size); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc, err, tc.want)
		}
	}
	w.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an aborted trace left %d files", len(entries))
	}
}
