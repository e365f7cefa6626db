package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// writeProfile says, when the tune found a threshold to keep, that its
// profile is saved and how a client applies it.
func (t *tuneReport) writeProfile(b *strings.Builder) {
	p := t.r.Profile("")
	if p == nil {
		return
	}
	fmt.Fprintf(b, "profile: %s keeps these thresholds per op and load (%s elsewhere); apply it with\n", tune.ProfileFile, units.Bytes(int64(p.Default)))
	b.WriteString("kvbench run --profile FILE, KVBENCH_PROFILE=FILE (the C API) or rdmakv.WithProfile.\n")
}

// TuneProfile writes the profile of r, a tune of the workload named
// workload, as kvbench tune keeps it in profile.json: JSON that
// rdmakv.LoadProfile reads, a rule a line. It writes nothing when r
// found no threshold to keep (tune.Result.Profile).
func TuneProfile(w io.Writer, r *tune.Result, workload string) error {
	p := r.Profile(workload)
	if p == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"kvbench_profile\": %d,\n  \"source\": %s,\n  \"default_threshold\": %d,\n  \"rules\": [",
		p.Version, plainJSON(p.Source), p.Default)
	for i, rule := range p.Rules {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    " + plainJSON(rule))
	}
	b.WriteString("\n  ]\n}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// plainJSON is v as compact JSON, with "<" and ">" left as they are.
func plainJSON(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic(err) // strings and profile rules always encode
	}
	return strings.TrimSuffix(b.String(), "\n")
}
