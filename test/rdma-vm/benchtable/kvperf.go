package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// kvperfResult is the part of a kvperf bench report the table uses. Other
// fields are ignored.
type kvperfResult struct {
	// P50NS is the median operation latency in nanoseconds.
	P50NS *float64 `json:"p50_ns"`
	// OpsPerSec is completed operations per second.
	OpsPerSec *float64 `json:"ops_per_sec"`
	// MBPerSec is value bytes moved per second in MiB (2^20), perftest's unit.
	MBPerSec *float64 `json:"mb_per_sec"`
	// Protocol is how the server answered: "eager" or "rendezvous".
	Protocol *string `json:"protocol"`
	// Poll is the client's completion polling mode ("event" or "busy").
	Poll *string `json:"poll"`
}

// checkProtocol fails when the report names a protocol other than want:
// a case that measured the wrong path must not be compared. A report
// without the field passes.
func (r kvperfResult) checkProtocol(want string) error {
	if r.Protocol != nil && *r.Protocol != want {
		return fmt.Errorf("protocol %s, want %s", *r.Protocol, want)
	}
	return nil
}

// mibPerSec is the case's throughput in MiB/s: from ops_per_sec and the
// known value size when present (no unit to misread), else mb_per_sec.
func (r kvperfResult) mibPerSec(valueSize int64) (float64, error) {
	switch {
	case r.OpsPerSec != nil:
		return *r.OpsPerSec * float64(valueSize) / (1 << 20), nil
	case r.MBPerSec != nil:
		return *r.MBPerSec, nil
	}
	return 0, fmt.Errorf("neither ops_per_sec nor mb_per_sec present")
}

// parseKvperfRuns decodes a report of repeated runs: the whole input as
// one JSON object, or else every line that is one, in order.
func parseKvperfRuns(data []byte) ([]kvperfResult, error) {
	var r kvperfResult
	if err := json.Unmarshal(data, &r); err == nil {
		return []kvperfResult{r}, nil
	}
	var runs []kvperfResult
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] != '{' {
			continue
		}
		var r kvperfResult
		if err := json.Unmarshal(l, &r); err == nil {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no JSON object found")
	}
	return runs, nil
}

// median is the middle value (the mean of the two middle ones for an even
// count): one slow or fast run of several does not move it.
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
