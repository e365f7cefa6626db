package bench

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/rdmakv"
)

// ScanLines is how much of a trace ScanTrace reads before a run
// measures; a problem further on ends the run when the replay meets it.
const ScanLines = 10000

// ScanShown is how many problems ScanTrace and a workload's validation
// list; a count says how many more there are.
const ScanShown = 20

// ScanTrace reads the first ScanLines lines of cfg's trace, if it
// replays one, before anything is measured: their problems fail the
// run, each named by file and line, and their value sizes size the
// run (Config.MaxValueSize, checked against the server's limits; the
// mean set names the cells until the measure phase knows its own).
func ScanTrace(cfg *Config) error {
	rp := cfg.Trace
	if rp == nil {
		return nil
	}
	r, err := trace.Open(rp.Path, rp.Format)
	if err != nil {
		return err
	}
	defer r.Close()
	var sets, setBytes int64
	p := trace.Scan(r, ScanShown, ScanLines, func(rec *trace.Record) {
		rp.maxValue = max(rp.maxValue, rec.ValueSize)
		if rec.Op == rdmakv.OpSet {
			sets++
			setBytes += int64(rec.ValueSize)
		}
	})
	if p.Count > 0 {
		return fmt.Errorf("trace %s: %d problems in its first %d lines, before anything is measured:\n%s",
			rp.Path, p.Count, ScanLines, p.Text())
	}
	if p.Records == 0 {
		return fmt.Errorf("trace %s: no request in its first %d lines", rp.Path, ScanLines)
	}
	mean := meanSize(sets, setBytes, 1)
	rp.meanSet = mean
	cfg.ValueSizes = []int{mean}
	return nil
}
