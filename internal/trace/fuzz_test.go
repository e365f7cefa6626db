package trace

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

func FuzzTwitter(f *testing.F) {
	for _, s := range []string{
		"0,a,1,2,3,get,0\n",
		string(compress(f, []byte("0,a,1,2,3,get,0\n"))),
		string(zstdMagic) + "garbage",
		"100,a:b:c,10,20,1,get,0\n100,a:b:d,11,0,2,gets,0\n100,k,12,300,3,set,3600\n102,k,12,0,3,delete,0\n",
		"0,ns,a,b,,c,5,6,7,get,0\r\n1,x,1,2,3,set,0",
		"# comment\n\n5,a,1,2,3,frobnicate,0\n5,a,1,2,3,get\n4,d,1,2,3,get,0\n3,,1,2,3,incr,0\n",
		"18446744073709551615,a,1,2,3,get,0\n0,a,1,2,3,get,0\n",
		"9000000000,a,1,2,3,get,0\n18000000001,a,1,2,3,get,0\n",
		twitterText(2, 5),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, Twitter, data) })
}

func FuzzKvbench(f *testing.F) {
	for _, s := range []string{
		KvbenchHeader + "\n0,get,k,1\n",
		"# c\n" + KvbenchHeader + "\n1000,set,user:42,4096\n1000,get,a,b,c,10\n900,delete,k,0\n",
		"0,get,k,1\n10,gets,k,1\n10,get,,1\n10,set,k,-5\n",
		KvbenchHeader + "\n9223372036854775807,get,k,1\n0,get,k,1\n",
		kvbenchText(10),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, Kvbench, data) })
}

// checkReader reads data to its end, plain and zstd-compressed: it never
// panics, always ends, every problem is an *Error at a line of the file,
// and every record is well formed.
func checkReader(t *testing.T, format Format, data []byte) {
	if bytes.HasPrefix(data, zstdMagic) {
		// Data the reader takes for zstd: whatever it decodes to, the
		// records are well formed (their lines are not data's).
		readChecked(t, format, data, math.MaxInt32, true)
		return
	}
	lines := int64(bytes.Count(data, []byte{'\n'}) + 1)
	plain := readChecked(t, format, data, lines, false)
	packed := readChecked(t, format, compress(t, data), lines, false)
	if len(plain) != len(packed) {
		t.Fatalf("%d records plain, %d compressed", len(plain), len(packed))
	}
	for i := range plain {
		if plain[i] != packed[i] {
			t.Fatalf("record %d: %+v plain, %+v compressed", i, plain[i], packed[i])
		}
	}
}

// readChecked reads a trace of lines lines (counting a last one without
// a newline); failed says whether a failed read may end it.
func readChecked(t *testing.T, format Format, data []byte, lines int64, failed bool) []rec {
	r, err := NewReader(bytes.NewReader(data), "f", format)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []rec
	var prevTime, prevLine int64
	for calls := int64(0); ; calls++ {
		if calls > lines+1 || calls > 1<<24 {
			t.Fatalf("%d calls to Read on %d lines", calls, lines)
		}
		var rc Record
		err := r.Read(&rc)
		if err == io.EOF {
			return out
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "f" || e.Line < 1 || e.Line > lines {
				t.Fatalf("problem %v (%#v) is not at a line of f", err, err)
			}
			if e.Err != nil {
				if !failed {
					t.Fatalf("a failed read of data in memory: %v", err)
				}
				return out
			}
			continue
		}
		switch {
		case rc.Op != rdmakv.OpGet && rc.Op != rdmakv.OpSet && rc.Op != rdmakv.OpDelete:
			t.Fatalf("op %v", rc.Op)
		case len(rc.Key) == 0 || bytes.ContainsAny(rc.Key, "\n"):
			t.Fatalf("key %q", rc.Key)
		case rc.Time < 0 || rc.Time < prevTime:
			t.Fatalf("time %d after %d", rc.Time, prevTime)
		case rc.Line <= prevLine || rc.Line > lines:
			t.Fatalf("line %d after %d, of %d", rc.Line, prevLine, lines)
		case rc.KeySize < 0 || rc.ValueSize < 0:
			t.Fatalf("sizes %d %d", rc.KeySize, rc.ValueSize)
		case format == Kvbench && (rc.KeySize != len(rc.Key) || rc.Client != 0):
			t.Fatalf("key size %d of %q, client %d", rc.KeySize, rc.Key, rc.Client)
		}
		if len(out) == 0 && rc.Time != 0 {
			t.Fatalf("the first record is at %d, not 0", rc.Time)
		}
		prevTime, prevLine = rc.Time, rc.Line
		out = append(out, rec{rc.Time, rc.Op, string(rc.Key), rc.KeySize, rc.ValueSize, rc.Client, rc.Line})
	}
}
