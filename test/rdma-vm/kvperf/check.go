package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kvbench/kvbench/rdmakv"
)

// checkSizes are the value sizes -check moves: both sides of the eager
// threshold and rendezvous sizes up to cfg.maxCheck.
func checkSizes(cfg config) []int {
	t := cfg.threshold
	sizes := []int{0, 1, 63, 100, 1000, 4095, 4096, 4097, 16 << 10, 64<<10 + 1, 1 << 20, cfg.maxCheck}
	for _, d := range []int{-2, -1, 0, 1} {
		if t+d > 0 {
			sizes = append(sizes, t+d)
		}
	}
	var out []int
	seen := map[int]bool{}
	for _, s := range sizes {
		if s <= cfg.maxCheck && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// fill writes a pattern that differs per size and per round, so a value
// from another key or an older Set never matches by accident.
func fill(b []byte, seed int) {
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
}

func runCheck(c *rdmakv.Client, cfg config, w io.Writer) error {
	lim := c.Limits()
	var bad []string
	fail := func(format string, args ...any) {
		bad = append(bad, fmt.Sprintf(format, args...))
	}
	ops := 0
	for round := 0; round < 2; round++ { // the second round overwrites
		for _, n := range checkSizes(cfg) {
			key := []byte(fmt.Sprintf("kvperf-check-%d", n))
			if int64(n) > lim.MaxValue {
				fmt.Fprintf(w, "skip %d bytes: above the server's MaxValue %d\n", n, lim.MaxValue)
				continue
			}
			val := make([]byte, n)
			fill(val, n*7+round)
			if err := c.Set(context.Background(), key, val); err != nil {
				fail("set %d bytes (round %d): %v", n, round, err)
				continue
			}
			v, err := c.Get(context.Background(), key)
			if err != nil {
				fail("get %d bytes (round %d): %v", n, round, err)
				continue
			}
			if got := v.Bytes(); !bytes.Equal(got, val) {
				fail("get %d bytes (round %d): %s", n, round, diff(got, val))
			}
			if want := c.ProtocolFor(len(key), n); v.Protocol() != want {
				fail("get %d bytes answered %v, want %v", n, v.Protocol(), want)
			}
			v.Release()
			ops += 2
		}
	}
	for _, n := range checkSizes(cfg) {
		if int64(n) > lim.MaxValue {
			continue
		}
		key := []byte(fmt.Sprintf("kvperf-check-%d", n))
		if err := c.Delete(context.Background(), key); err != nil {
			fail("delete %d: %v", n, err)
		}
		if v, err := c.Get(context.Background(), key); !errors.Is(err, rdmakv.ErrNotFound) {
			if err == nil {
				v.Release()
			}
			fail("get after delete of %d: %v, want ErrNotFound", n, err)
		}
		ops += 2
	}
	if len(bad) > 0 {
		for _, b := range bad {
			fmt.Fprintln(w, "FAIL", b)
		}
		return fmt.Errorf("%d of %d operations failed", len(bad), ops)
	}
	info := c.Info()
	fmt.Fprintf(w, "ok: %d operations, sizes up to %d bytes, threshold %d, over %s %s\n",
		ops, cfg.maxCheck, cfg.threshold, info.Transport, info.Device)
	return nil
}

func diff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d bytes, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at byte %d: %#02x, want %#02x", i, got[i], want[i])
		}
	}
	return "equal"
}
