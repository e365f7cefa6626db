// Command gen writes synth.Default, zstd-compressed, to the file -o names:
// workloads/traces/twitter-synthetic.csv.zst (go generate ./internal/trace/synth).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/klauspost/compress/zstd"

	"github.com/kvbench/kvbench/internal/trace/synth"
)

func main() {
	out := flag.String("o", "", "file to write")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gen -o FILE")
		os.Exit(2)
	}
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		f.Close()
		return err
	}
	s, err := synth.Twitter(zw, synth.Default)
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d requests (get %d, set %d, delete %d), %d distinct keys\n", path, s.Requests, s.Get, s.Set, s.Delete, s.DistinctKeys)
	return nil
}
