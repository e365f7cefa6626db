// Package hwcounters reads an RDMA device's hardware counters from sysfs
// (ROOT/DEV/ports/PORT/hw_counters/NAME, and ROOT/DEV/hw_counters/NAME on
// devices that count for the whole device too), one integer a file, so
// that a run can record what each counter grew by over a measure phase.
// It is read at phase boundaries only, never per operation: each read
// opens a file per counter.
package hwcounters

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Root is where Linux lists RDMA devices.
const Root = "/sys/class/infiniband"

// lifespan is not a counter: it is how long, in milliseconds, the kernel
// serves counter values from its cache before asking the driver again.
const lifespan = "lifespan"

// Counters are a device's counters by name, as read at one moment.
type Counters map[string]uint64

// Read reads the counters of port of device under root (Root on a real
// machine): the port's, and the device's own where it has them; a port
// counter wins over a device counter of the same name, since the port is
// the one the connection uses. A directory that does not exist or cannot
// be listed holds no counters and is no error: tcp has no device, and a
// host may lack the device or hide sysfs. A counter file that cannot be
// read or does not hold one unsigned integer is left out and named in the
// error, which comes beside the counters that were read.
func Read(root, device string, port int) (Counters, error) {
	if device == "" || device == "." || device == ".." || strings.ContainsRune(device, filepath.Separator) {
		return nil, fmt.Errorf("RDMA device name %q: not a device", device)
	}
	var out Counters
	var errs []error
	dirs := []string{filepath.Join(root, device, "hw_counters")}
	if port > 0 {
		// Read last, so that the port's counters overwrite the device's.
		dirs = append(dirs, filepath.Join(root, device, "ports", strconv.Itoa(port), "hw_counters"))
	}
	for _, dir := range dirs {
		c, err := readDir(dir)
		errs = append(errs, err)
		if c != nil && out == nil {
			out = Counters{}
		}
		for name, v := range c {
			out[name] = v
		}
	}
	return out, errors.Join(errs...)
}

// readDir reads every counter file in dir: nil for a directory that
// cannot be listed.
func readDir(dir string) (Counters, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	out := Counters{}
	var errs []error
	for _, e := range entries {
		if e.IsDir() || e.Name() == lifespan {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil {
			out[e.Name()], err = Parse(b)
		}
		if err != nil {
			delete(out, e.Name())
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(dir, e.Name()), err))
		}
	}
	return out, errors.Join(errs...)
}

// Parse reads a counter file's contents: one unsigned decimal integer,
// with the newline the kernel ends it with.
func Parse(b []byte) (uint64, error) {
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want one unsigned integer, have %q", truncate(s, 32))
	}
	return v, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Delta is what each counter grew by from before to after. A counter
// missing from either reading, or lower in after (the device was reset or
// removed and added again between them), is left out: its growth is not
// known. Nil when either reading is nil (nothing was read).
func Delta(before, after Counters) map[string]uint64 {
	if before == nil || after == nil {
		return nil
	}
	out := make(map[string]uint64, len(after))
	for name, a := range after {
		if b, ok := before[name]; ok && a >= b {
			out[name] = a - b
		}
	}
	return out
}
