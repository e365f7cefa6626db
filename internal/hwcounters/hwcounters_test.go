package hwcounters

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tree writes counter files under root: path (relative to root) to
// contents.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rxe counts per port; lifespan is a setting, not a counter; another
// port's and another device's counters are not this connection's.
func TestReadPort(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		"rxe0/ports/1/hw_counters/send_rnr_err": "12\n",
		"rxe0/ports/1/hw_counters/sent_pkts":    "18446744073709551615\n",
		"rxe0/ports/1/hw_counters/lifespan":     "10\n",
		"rxe0/ports/2/hw_counters/send_rnr_err": "99\n",
		"rxe1/ports/1/hw_counters/send_rnr_err": "98\n",
	})
	got, err := Read(root, "rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := Counters{"send_rnr_err": 12, "sent_pkts": 1<<64 - 1}
	if !maps.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
}

// A device that counts for itself too gives both sets, and where a name
// is in both the port's value is the one kept.
func TestReadDeviceAndPort(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		"mlx5_0/hw_counters/num_qps":                       "4\n",
		"mlx5_0/hw_counters/out_of_buffer":                 "1\n",
		"mlx5_0/ports/1/hw_counters/out_of_buffer":         "7\n",
		"mlx5_0/ports/1/hw_counters/rnr_nak_retry_err":     "0\n",
		"mlx5_0/ports/1/hw_counters/local_ack_timeout_err": "3\n",
	})
	got, err := Read(root, "mlx5_0", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := Counters{"num_qps": 4, "out_of_buffer": 7, "rnr_nak_retry_err": 0, "local_ack_timeout_err": 3}
	if !maps.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
}

// No device, no counters directory, or no sysfs at all: nothing is
// recorded and nothing is wrong.
func TestReadAbsent(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"siw0/ports/1/state": "4: ACTIVE\n"})
	for _, c := range []struct {
		root, dev string
	}{{root, "rxe0"}, {root, "siw0"}, {filepath.Join(root, "nowhere"), "rxe0"}} {
		got, err := Read(c.root, c.dev, 1)
		if got != nil || err != nil {
			t.Errorf("%s under %s: %v, %v; want nothing and no error", c.dev, c.root, got, err)
		}
	}
}

// A file that is not one unsigned integer (or not a file) is left out and
// named; the others are still read.
func TestReadGarbage(t *testing.T) {
	root := t.TempDir()
	dir := "rxe0/ports/1/hw_counters/"
	tree(t, root, map[string]string{
		dir + "send_rnr_err":        "12\n",
		dir + "rcvd_rnr_err":        "lots\n",
		dir + "duplicate_request":   "-1\n",
		dir + "rcvd_seq_err":        "",
		dir + "retry_exceeded_err":  "18446744073709551616\n", // 2^64
		dir + "completer_retry_err": strings.Repeat("9", 4096),
	})
	if err := os.Mkdir(filepath.Join(root, dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Read(root, "rxe0", 1)
	if want := (Counters{"send_rnr_err": 12}); !maps.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	for _, name := range []string{"rcvd_rnr_err", "duplicate_request", "rcvd_seq_err", "retry_exceeded_err", "completer_retry_err"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
	if len(err.Error()) > 2000 {
		t.Errorf("error of %d bytes: a long file is quoted whole", len(err.Error()))
	}
}

// A device name never leads out of the root.
func TestReadRefusesPaths(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"hw_counters/x": "1\n", "a/ports/1/hw_counters/x": "1\n"})
	for _, dev := range []string{"", ".", "..", "a/../a", "../" + filepath.Base(root)} {
		if got, err := Read(filepath.Join(root, "a"), dev, 1); got != nil || err == nil {
			t.Errorf("device %q: read %v, %v; want an error", dev, got, err)
		}
	}
}

func TestDelta(t *testing.T) {
	before := Counters{"send_rnr_err": 10, "sent_pkts": 100, "reset": 50, "gone": 1}
	after := Counters{"send_rnr_err": 13, "sent_pkts": 100, "reset": 2, "new": 5}
	want := map[string]uint64{"send_rnr_err": 3, "sent_pkts": 0}
	if got := Delta(before, after); !maps.Equal(got, want) {
		t.Errorf("delta %v, want %v", got, want)
	}
	if Delta(nil, after) != nil || Delta(before, nil) != nil {
		t.Error("a delta from a reading that read nothing")
	}
	if got := Delta(Counters{}, Counters{}); got == nil || len(got) != 0 {
		t.Errorf("delta of two empty readings %v, want empty", got)
	}
}

// Parse takes what the kernel writes, and nothing it would not; it never
// panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0\n", "12\n", "18446744073709551615\n", "18446744073709551616\n", "-1\n", "", "x", " 7 ", "0x10\n", "1_000\n", "+5\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		if strings.TrimLeft(s, "0") != strings.TrimLeft(strconv.FormatUint(v, 10), "0") {
			t.Errorf("%q parsed as %d", b, v)
		}
		if w, err := Parse([]byte(strconv.FormatUint(v, 10) + "\n")); err != nil || w != v {
			t.Errorf("%d written as the kernel does reads back as %d, %v", v, w, err)
		}
	})
}
