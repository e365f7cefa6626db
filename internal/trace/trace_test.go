package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kvbench/kvbench/rdmakv"
)

// readAll reads every record and every problem of a trace given as text.
func readAll(t *testing.T, format Format, text string) ([]Record, []string) {
	t.Helper()
	r, err := NewReader(strings.NewReader(text), "t.csv", format)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return drain(t, r)
}

func drain(t *testing.T, r *Reader) ([]Record, []string) {
	t.Helper()
	var recs []Record
	var errs []string
	for i := 0; ; i++ {
		if i > 1e6 {
			t.Fatal("the reader makes no progress")
		}
		var rec Record
		err := r.Read(&rec)
		if err == io.EOF {
			return recs, errs
		}
		if err != nil {
			errs = append(errs, err.Error())
			if e := (*Error)(nil); errors.As(err, &e) && e.Err != nil {
				// A failed read repeats; stop at it.
				if again := r.Read(&Record{}); again != err {
					t.Fatalf("a failed read did not stick: %v then %v", err, again)
				}
				return recs, errs
			}
			continue
		}
		rec.Key = bytes.Clone(rec.Key)
		recs = append(recs, rec)
	}
}

type rec struct {
	time   int64
	op     rdmakv.Op
	key    string
	ksz    int
	vsz    int
	client uint32
	line   int64
}

func simplify(rs []Record) []rec {
	var out []rec
	for _, r := range rs {
		out = append(out, rec{r.Time, r.Op, string(r.Key), r.KeySize, r.ValueSize, r.Client, r.Line})
	}
	return out
}

func sameRecs(t *testing.T, got []Record, want []rec) {
	t.Helper()
	g := simplify(got)
	if len(g) != len(want) {
		t.Fatalf("%d records, want %d:\n%v", len(g), len(want), g)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, g[i], want[i])
		}
	}
}

func sameErrs(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTwitterSpreadsEachSecond(t *testing.T) {
	// Timestamps from 100: times count from the first line's second. The
	// three requests of second 100 sit at 0, 1/3 and 2/3 s; second 101 is
	// empty; second 102's one request is at its start.
	text := "100,a:b:c,10,20,1,get,0\n" +
		"100,a:b:d,11,0,2,gets,0\n" +
		"100,k,12,300,3,set,3600\n" +
		"102,k,12,0,3,delete,0\n"
	recs, errs := readAll(t, Twitter, text)
	sameErrs(t, errs, nil)
	sameRecs(t, recs, []rec{
		{0, rdmakv.OpGet, "a:b:c", 10, 20, 1, 1},
		{333333333, rdmakv.OpGet, "a:b:d", 11, 0, 2, 2},
		{666666666, rdmakv.OpSet, "k", 12, 300, 3, 3},
		{2e9, rdmakv.OpDelete, "k", 12, 0, 3, 4},
	})
}

func TestTwitterOps(t *testing.T) {
	want := map[string]rdmakv.Op{
		"get": rdmakv.OpGet, "gets": rdmakv.OpGet,
		"set": rdmakv.OpSet, "add": rdmakv.OpSet, "replace": rdmakv.OpSet, "cas": rdmakv.OpSet,
		"append": rdmakv.OpSet, "prepend": rdmakv.OpSet, "incr": rdmakv.OpSet, "decr": rdmakv.OpSet,
		"delete": rdmakv.OpDelete,
	}
	for name, op := range want {
		recs, errs := readAll(t, Twitter, "0,key,3,77,5,"+name+",0\n")
		if len(errs) > 0 || len(recs) != 1 {
			t.Fatalf("%s: %v %v", name, recs, errs)
		}
		if recs[0].Op != op || recs[0].ValueSize != 77 {
			t.Errorf("%s: op %v value size %d, want %v 77", name, recs[0].Op, recs[0].ValueSize, op)
		}
	}
}

func TestTwitterKeyWithCommasAndLineEndings(t *testing.T) {
	text := "# a comment\n\n0,ns,a,b,,c,5,6,7,get,0\r\n1,x,1,2,3,set,0" // no final newline
	recs, errs := readAll(t, Twitter, text)
	sameErrs(t, errs, nil)
	sameRecs(t, recs, []rec{
		{0, rdmakv.OpGet, "ns,a,b,,c", 5, 6, 7, 3},
		{1e9, rdmakv.OpSet, "x", 1, 2, 3, 4},
	})
}

func TestTwitterProblems(t *testing.T) {
	text := strings.Join([]string{
		"5,a,1,2,3,get,0",           // 1 ok
		"5,a,1,2,3,frobnicate,0",    // 2 bad op
		"5,a,1,2,3,get",             // 3 six columns
		"x,a,1,2,3,get,0",           // 4 bad timestamp
		"5,a,-1,2,3,get,0",          // 5 bad key size
		"5,a,1,2.5,3,get,0",         // 6 bad value size
		"5,a,1,2,99999999999,get,0", // 7 client id too large
		"5,a,1,2,3,get,never",       // 8 bad TTL
		"5,,1,2,3,get,0",            // 9 empty key
		"5,b,1,2,3,set,0",           // 10 ok
		"6,c,1,2,3,get,0",           // 11 ok
		"4,d,1,2,3,get,0",           // 12 back in time
		"6,e,1,2,3,GET,0",           // 13 op is case-sensitive
		"7,f,1,2,3,get,0",           // 14 ok
	}, "\n") + "\n"
	recs, errs := readAll(t, Twitter, text)
	sameErrs(t, errs, []string{
		`t.csv:2: operation "frobnicate": want one of get, gets, set, add, replace, cas, append, prepend, delete, incr, decr`,
		`t.csv:3: want 7 comma-separated columns (timestamp,key,key size,value size,client id,operation,TTL), got 6`,
		`t.csv:4: timestamp "x": want whole seconds, an integer >= 0`,
		`t.csv:5: key size "-1": want an integer from 0 to 4294967295`,
		`t.csv:6: value size "2.5": want an integer from 0 to 4294967295`,
		`t.csv:7: client id "99999999999": want an integer from 0 to 4294967295`,
		`t.csv:8: TTL "never": want an integer >= 0`,
		`t.csv:9: empty key`,
		`t.csv:12: timestamp 4 is before the previous line's 6: a trace's time never goes back`,
		`t.csv:13: operation "GET": want one of get, gets, set, add, replace, cas, append, prepend, delete, incr, decr`,
	})
	// The two good lines of second 5 are spread across it, the bad ones
	// not counted.
	sameRecs(t, recs, []rec{
		{0, rdmakv.OpGet, "a", 1, 2, 3, 1},
		{5e8, rdmakv.OpSet, "b", 1, 2, 3, 10},
		{1e9, rdmakv.OpGet, "c", 1, 2, 3, 11},
		{2e9, rdmakv.OpGet, "f", 1, 2, 3, 14},
	})
}

func TestLongLine(t *testing.T) {
	long := "0," + strings.Repeat("k", MaxLine) + ",1,2,3,get,0\n"
	text := "0,a,1,2,3,get,0\n" + long + "0,b,1,2,3,get,0\n"
	recs, errs := readAll(t, Twitter, text)
	sameErrs(t, errs, []string{fmt.Sprintf("t.csv:2: line longer than %d bytes", MaxLine)})
	sameRecs(t, recs, []rec{
		{0, rdmakv.OpGet, "a", 1, 2, 3, 1},
		{5e8, rdmakv.OpGet, "b", 1, 2, 3, 3},
	})

	recs, errs = readAll(t, Kvbench, KvbenchHeader+"\n"+strings.Repeat("x", MaxLine+10)+"\n5,get,k,1\n")
	sameErrs(t, errs, []string{fmt.Sprintf("t.csv:2: line longer than %d bytes", MaxLine)})
	sameRecs(t, recs, []rec{{0, rdmakv.OpGet, "k", 1, 1, 0, 3}})
}

func TestKvbench(t *testing.T) {
	text := "# recorded by hand\n" + KvbenchHeader + "\n" +
		"1000,set,user:42,4096\n" +
		"1000,get,user:42,4096\n" +
		"2500,get,a,b,c,10\n" +
		"2600,delete,user:42,0\n"
	recs, errs := readAll(t, Kvbench, text)
	sameErrs(t, errs, nil)
	sameRecs(t, recs, []rec{
		{0, rdmakv.OpSet, "user:42", 7, 4096, 0, 3},
		{0, rdmakv.OpGet, "user:42", 7, 4096, 0, 4},
		{1500, rdmakv.OpGet, "a,b,c", 5, 10, 0, 5},
		{1600, rdmakv.OpDelete, "user:42", 7, 0, 0, 6},
	})
}

func TestKvbenchProblems(t *testing.T) {
	text := strings.Join([]string{
		"0,get,k,1",     // 1 no header
		"10,get,k,1",    // 2 ok
		"10,gets,k,1",   // 3 bad op
		"10,get,k",      // 4 three columns
		"-1,get,k,1",    // 5 bad time
		"10,get,,1",     // 6 empty key
		"10,set,k,-5",   // 7 bad size
		"9,get,k,1",     // 8 back in time
		"12,delete,k,0", // 9 ok
	}, "\n")
	recs, errs := readAll(t, Kvbench, text)
	sameErrs(t, errs, []string{
		`t.csv:1: want the header line "time_ns,op,key,value_size" first, got "0,get,k,1"`,
		`t.csv:3: op "gets": want get, set or delete`,
		`t.csv:4: want 4 comma-separated columns (time_ns,op,key,value_size), got 3`,
		`t.csv:5: time_ns "-1": want an integer >= 0`,
		`t.csv:6: empty key`,
		`t.csv:7: value_size "-5": want an integer from 0 to 4294967295`,
		`t.csv:8: time_ns 9 is before the previous line's 10: a trace's time never goes back`,
	})
	sameRecs(t, recs, []rec{
		{0, rdmakv.OpGet, "k", 1, 1, 0, 2},
		{2, rdmakv.OpDelete, "k", 1, 0, 0, 9},
	})
}

// encoder compresses in the tests; EncodeAll may be called concurrently.
var encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))

func compress(t testing.TB, b []byte) []byte {
	t.Helper()
	return encoder.EncodeAll(b, nil)
}

func TestZstdIsDetected(t *testing.T) {
	text := twitterText(5, 100)
	plain, errs := readAll(t, Twitter, text)
	sameErrs(t, errs, nil)
	z := compress(t, []byte(text))
	r, err := NewReader(bytes.NewReader(z), "t.csv.zst", Twitter)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	packed, errs := drain(t, r)
	sameErrs(t, errs, nil)
	if len(plain) != 500 {
		t.Fatalf("%d records, want 500", len(plain))
	}
	sameRecs(t, packed, simplify(plain))
}

func TestCorruptZstdEndsTheRead(t *testing.T) {
	z := compress(t, []byte(twitterText(50, 1000)))
	z[len(z)/2] ^= 0xff
	z[len(z)/2+1] ^= 0xff
	r, err := NewReader(bytes.NewReader(z), "bad.zst", Twitter)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, errs := drain(t, r)
	if len(errs) == 0 || !strings.HasPrefix(errs[len(errs)-1], "bad.zst:") || !strings.Contains(errs[len(errs)-1], "read (zstd)") {
		t.Fatalf("problems %q, want a failed zstd read last", errs)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte(KvbenchHeader+"\n5,get,k,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, Kvbench)
	if err != nil {
		t.Fatal(err)
	}
	recs, errs := drain(t, r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || len(errs) != 0 {
		t.Fatalf("%v %v", recs, errs)
	}
	if _, err := Open(filepath.Join(dir, "missing"), Twitter); err == nil {
		t.Error("a missing file opened")
	}
	if _, err := Open(path, "csv"); err == nil || !strings.Contains(err.Error(), "twitter or kvbench") {
		t.Errorf("unknown format: %v", err)
	}
}

func TestEmptyTrace(t *testing.T) {
	for _, f := range Formats {
		recs, errs := readAll(t, f, "")
		if len(recs)+len(errs) != 0 {
			t.Errorf("%s: %v %v", f, recs, errs)
		}
	}
}

func TestValidate(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "%d,k,1,2,3,get,0\n", i)
		fmt.Fprintf(&b, "%d,k,1,2,3,bad,0\n", i)
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Validate(path, Twitter, 20)
	if err != nil {
		t.Fatal(err)
	}
	if p.Count != 30 || len(p.First) != 20 || p.Records != 30 {
		t.Fatalf("count %d, first %d, records %d; want 30, 20, 30", p.Count, len(p.First), p.Records)
	}
	for i, e := range p.First {
		if e.File != path || e.Line != int64(2*i+2) {
			t.Errorf("problem %d at %s:%d, want line %d", i, e.File, e.Line, 2*i+2)
		}
	}
	if _, err := Validate(filepath.Join(t.TempDir(), "missing"), Twitter, 20); err == nil {
		t.Error("a missing file validated")
	}
}

func TestValidateStopsAtAFailedRead(t *testing.T) {
	z := compress(t, []byte(twitterText(50, 1000)))
	z = z[:len(z)/2]
	r, err := NewReader(bytes.NewReader(z), "cut.zst", Twitter)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := ValidateReader(r, -1)
	if p.Count != 1 || p.First[0].Err == nil || p.Records == 0 {
		t.Fatalf("%+v, want the failed read alone after some records", p)
	}
}

// twitterText is a Twitter trace of seconds seconds of perSecond
// requests each.
func twitterText(seconds, perSecond int) string {
	var b strings.Builder
	ops := []string{"get", "get", "get", "set", "gets", "delete", "add", "get"}
	i := 0
	for s := range seconds {
		for range perSecond {
			fmt.Fprintf(&b, "%d,nz:u:%012x,%d,%d,%d,%s,%d\n", s, (i*2654435761)%100003, 20+i%30, 100+(i*7)%4000, i%64, ops[i%len(ops)], (i%2)*3600)
			i++
		}
	}
	return b.String()
}

func kvbenchText(n int) string {
	var b strings.Builder
	b.WriteString(KvbenchHeader + "\n")
	ops := []string{"get", "get", "set", "delete"}
	for i := range n {
		fmt.Fprintf(&b, "%d,%s,user:%08d,%d\n", int64(i)*1234, ops[i%len(ops)], (i*2654435761)%100003, 100+(i*7)%4000)
	}
	return b.String()
}

func TestNoAllocationsPerRecord(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		data   []byte
	}{
		{"twitter", Twitter, []byte(twitterText(200, 1000))},
		{"kvbench", Kvbench, []byte(kvbenchText(200000))},
		{"twitter zstd", Twitter, compress(t, []byte(twitterText(200, 1000)))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(c.data), "t", c.format)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// Warm up: the buffers grow to a second's worth.
			for range 5000 {
				if err := r.Read(&Record{}); err != nil {
					t.Fatal(err)
				}
			}
			var rec Record
			allocs := testing.AllocsPerRun(50000, func() {
				if err := r.Read(&rec); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per record, want 0", allocs)
			}
		})
	}
}

// BenchmarkReadTwitter parses a plain Twitter trace in memory and reports
// lines per second.
func BenchmarkReadTwitter(b *testing.B) {
	benchRead(b, Twitter, []byte(twitterText(100, 10000)))
}

func BenchmarkReadTwitterZstd(b *testing.B) {
	benchRead(b, Twitter, compress(b, []byte(twitterText(100, 10000))))
}

func BenchmarkReadKvbench(b *testing.B) {
	benchRead(b, Kvbench, []byte(kvbenchText(1000000)))
}

func benchRead(b *testing.B, f Format, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	lines := 0
	var rec Record
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), "bench", f)
		if err != nil {
			b.Fatal(err)
		}
		for {
			err := r.Read(&rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			lines++
		}
		r.Close()
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}

// parseUint takes every integer up to its bound, whatever its digits, and
// refuses one past it, including those past a uint64.
func TestParseUint(t *testing.T) {
	for _, c := range []struct {
		s   string
		max uint64
		ok  bool
	}{
		{"0", 0, true},
		{"1", 0, false},
		{"4294967295", math.MaxUint32, true},
		{"4294967296", math.MaxUint32, false},
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", math.MaxInt64, false},
		{"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", math.MaxUint64, false},
		{"99999999999999999999", math.MaxUint64, false},
		{"00000000000000000001", 1, true},
		{"123456789012345678901", math.MaxUint64, false},
		{"12a", math.MaxUint64, false},
		{"", math.MaxUint64, false},
	} {
		v, ok := parseUint([]byte(c.s), c.max)
		if ok != c.ok {
			t.Errorf("parseUint(%q, %d) ok = %v, want %v", c.s, c.max, ok, c.ok)
			continue
		}
		if want, err := strconv.ParseUint(c.s, 10, 64); ok && (err != nil || v != want) {
			t.Errorf("parseUint(%q) = %d, want %d", c.s, v, want)
		}
	}
}

// Auto reads kvbench's format when the first line that counts is its
// header, plain or compressed, and Twitter's otherwise; Detect says which
// of a file.
func TestAutoFormat(t *testing.T) {
	kv := "# recorded\n\n" + kvbenchText(3)
	for _, c := range []struct {
		name string
		data []byte
		want Format
		recs int
	}{
		{"kvbench", []byte(kv), Kvbench, 3},
		{"kvbench crlf", []byte(strings.ReplaceAll(kv, "\n", "\r\n")), Kvbench, 3},
		{"kvbench zstd", compress(t, []byte(kv)), Kvbench, 3},
		{"twitter", []byte(twitterText(2, 3)), Twitter, 6},
		{"twitter zstd", compress(t, []byte(twitterText(2, 3))), Twitter, 6},
		{"empty", nil, Twitter, 0},
	} {
		path := filepath.Join(t.TempDir(), "t")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Detect(path); err != nil || f != c.want {
			t.Errorf("%s: Detect = %s, %v; want %s", c.name, f, err, c.want)
		}
		r, err := Open(path, Auto)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		var rec Record
		for r.Read(&rec) == nil {
			n++
		}
		r.Close()
		if r.Format() != c.want || n != c.recs {
			t.Errorf("%s: read as %s, %d records; want %s, %d", c.name, r.Format(), n, c.want, c.recs)
		}
	}
}
