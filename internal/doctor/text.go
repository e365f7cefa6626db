package doctor

import (
	"encoding/json"
	"fmt"
	"io"
)

// sections in the order the text report prints them.
var sections = []struct{ key, title string }{
	{secDevices, "RDMA devices"},
	{secCaps, "Capabilities rdmakv uses"},
	{secLimits, "Limits and settings"},
	{secServer, "Server"},
}

// WriteText prints the report for a person: each section's checks, the
// fix under each problem, and a last line saying whether a run would work.
func (r *Report) WriteText(w io.Writer) error {
	fails, warns := 0, 0
	for _, s := range sections {
		first := true
		for _, c := range r.Checks {
			if c.Section != s.key {
				continue
			}
			if first {
				title := s.title
				if s.key == secServer && r.Server != nil {
					title += " " + r.Server.Addr + " (" + r.Server.Transport + ")"
				}
				fmt.Fprintln(w, title)
				first = false
			}
			fmt.Fprintf(w, "  %-4s  %s: %s\n", c.Status, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(w, "        fix: %s\n", c.Fix)
			}
			switch c.Status {
			case Fail:
				fails++
			case Warn:
				warns++
			}
		}
	}
	var err error
	if r.OK {
		_, err = fmt.Fprintf(w, "a run would work (%s)\n", count(warns, "warning"))
	} else {
		_, err = fmt.Fprintf(w, "a run would not work: %s (and %s)\n", count(fails, "failed check"), count(warns, "warning"))
	}
	return err
}

// count is n things, in the singular for one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}
