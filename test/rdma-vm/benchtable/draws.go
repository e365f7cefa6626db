package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A round of guest-bench.sh runs each compared case DRAWS times in a row,
// each draw a fresh process pair: perftest's baseline, then kvbench. A
// round keeps each side's fastest draw (guest-bench.sh says why).

// readDraws is the draws per round guest-bench.sh recorded in draws.txt, 1
// when the file is missing (a run from before draws).
func readDraws(dir string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, "draws.txt"))
	if os.IsNotExist(err) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("draws.txt: want a positive count, got %q", strings.TrimSpace(string(data)))
	}
	return n, nil
}

// bestOfDraws turns a series holding draws values per round, in run order,
// into one value per round: the lowest of each round's draws, or the
// highest when higher is set (a throughput).
func bestOfDraws(s series, draws int, higher bool) (series, error) {
	if draws == 1 || s == nil {
		return s, nil
	}
	if len(s)%draws != 0 {
		return nil, fmt.Errorf("%d reports are not whole rounds of %d draws", len(s), draws)
	}
	out := make(series, 0, len(s)/draws)
	for i := 0; i < len(s); i += draws {
		best := s[i]
		for _, v := range s[i+1 : i+draws] {
			if (higher && v > best) || (!higher && v < best) {
				best = v
			}
		}
		out = append(out, best)
	}
	return out, nil
}
