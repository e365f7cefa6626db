package main

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestHeaderColumns(t *testing.T) {
	cases := map[string][]string{
		" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ": {
			"#bytes", "#iterations", "t_min[usec]", "t_max[usec]", colTypicalUsec, "t_avg[usec]",
			"t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]"},
		" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]": {
			"#bytes", "#iterations", "BW peak[MB/sec]", colBWAverage, "MsgRate[Mpps]"},
	}
	for in, want := range cases {
		if got := headerColumns(strings.Fields(in)); !reflect.DeepEqual(got, want) {
			t.Errorf("headerColumns(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestParsePerftest(t *testing.T) {
	cases := []struct {
		file  string
		bytes int64
		col   string
		want  float64
	}{
		{"ib_send_lat-64.txt", 64, colTypicalUsec, 13.29},
		{"ib_read_lat-2.txt", 2, colTypicalUsec, 27.74},
		{"ib_read_lat-65536.txt", 65536, colTypicalUsec, 1478.12},
		{"ib_write_bw-1048576.txt", 1048576, colBWAverage, 30.42},
		{"ib_write_bw-1048576.txt", 1048576, "MsgRate[Mpps]", 0.000030},
	}
	for _, c := range cases {
		f, err := os.Open("testdata/bench/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := parsePerftest(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		got, err := perftestValues(rows, c.bytes, c.col)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s %s = %v, want [%v]", c.file, c.col, got, c.want)
		}
	}
}

func TestParsePerftestErrors(t *testing.T) {
	cases := map[string]string{
		"no table":  "Couldn't connect to 10.0.0.1:18515\n",
		"short row": " #bytes #iterations t_min[usec] t_typical[usec]\n 2 100 9.1\n",
		"bad value": " #bytes #iterations t_min[usec] t_typical[usec]\n 2 100 9.1 x\n",
	}
	for name, in := range cases {
		if _, err := parsePerftest(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestPerftestValueMissing(t *testing.T) {
	rows, err := parsePerftest(strings.NewReader(" #bytes #iterations t_typical[usec]\n 2 100 9.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := perftestValues(rows, 4096, colTypicalUsec); err == nil {
		t.Error("no error for a size that is not there")
	}
	if _, err := perftestValues(rows, 2, colBWAverage); err == nil {
		t.Error("no error for a column that is not there")
	}
	if v, err := perftestValues(rows, 2, colTypicalUsec); err != nil || len(v) != 1 || v[0] != 9.5 {
		t.Errorf("got %v, %v; want [9.5]", v, err)
	}
}

func FuzzParsePerftest(f *testing.F) {
	for _, name := range []string{"ib_send_lat-64.txt", "ib_write_bw-1048576.txt"} {
		data, err := os.ReadFile("testdata/bench/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add(" #bytes BW\n 1 2 3\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := parsePerftest(strings.NewReader(in))
		if err == nil && len(rows) == 0 {
			t.Fatal("no error and no rows")
		}
	})
}

// TestPerftestRounds: a file holding one report per round yields every
// round's row, in order, and their median.
func TestPerftestRounds(t *testing.T) {
	data, err := os.ReadFile("testdata/bench/ib_send_lat-64.txt")
	if err != nil {
		t.Fatal(err)
	}
	rounds := string(data) + strings.Replace(string(data), "13.29", "20.00", 1) +
		strings.Replace(string(data), "13.29", "11.50", 1)
	rows, err := parsePerftest(strings.NewReader(rounds))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows from three concatenated reports, want 3", len(rows))
	}
	v, err := perftestValues(rows, 64, colTypicalUsec)
	if err != nil || !slices.Equal(v, series{13.29, 20, 11.5}) {
		t.Fatalf("rounds 13.29, 20.00 and 11.50: got %v, %v", v, err)
	}
	if m := v.med(); m == nil || *m != 13.29 {
		t.Errorf("median of 13.29, 20.00 and 11.50: got %v", m)
	}
}
