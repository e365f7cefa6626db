package figure

import (
	"slices"
	"strconv"

	"github.com/kvbench/kvbench/internal/results"
)

// ReceiveMemory (rdmakv) is the memory verbs registers for receives at the
// cell's threshold and load (results.ReceiveMemory), the server's and the
// clients'. It is a property of the configuration, not a measurement:
// a run over tcp records what verbs would register.
var ReceiveMemory = Figure{
	Name:  "receive_memory",
	Unit:  Bytes,
	Has:   func(c results.Cell) bool { return c.ReceiveMemory != nil },
	Merge: Merge{New: func() Merger { return &rmemAcc{} }},
	Compare: &Compare{
		Names: []string{"rmem_s", "rmem_c"}, Values: rmemValues,
		Note: "rmem_s, rmem_c: registered receive memory (verbs) at the cell's threshold and load, the server's and the clients'; a property of the configuration, shown, never judged.",
	},
	Report: Report{
		Columns: []Column{
			{Head: "rmem_s", Summary: "rmem_s", Text: func(c results.Cell, num func(float64) string) string {
				return num(float64(c.ReceiveMemory.Server))
			}},
			{Head: "rmem_c", Summary: "rmem_c", Text: func(c results.Cell, num func(float64) string) string {
				return num(float64(c.ReceiveMemory.Client))
			}},
		},
		CSV: []CSVColumn{
			{"rmem_server_bytes", func(c results.Cell) string { return strconv.FormatInt(c.ReceiveMemory.Server, 10) }},
			{"rmem_client_bytes", func(c results.Cell) string { return strconv.FormatInt(c.ReceiveMemory.Client, 10) }},
		},
		Note: rmemNote,
		JSON: func(c results.Cell) any { return c.ReceiveMemory },
	},
}

func rmemNote(cells []results.Cell) string {
	if !slices.ContainsFunc(cells, func(c results.Cell) bool { return c.ReceiveMemory != nil }) {
		return ""
	}
	return "registered receive memory (verbs) at the cell's threshold and load: rmem_s the server's, rmem_c the clients' (over tcp, what verbs would register)"
}

// rmemValues are the server's and the clients' receive memory of a cell's
// runs, when every run recorded it: informational, as a configuration's
// cost has no noise to test.
func rmemValues(as, bs []results.Cell) ([]Values, string) {
	for _, c := range append(as[:len(as):len(as)], bs...) {
		if c.ReceiveMemory == nil {
			return nil, ""
		}
	}
	return []Values{
		Each("rmem_s", as, bs, func(c results.Cell) float64 { return float64(c.ReceiveMemory.Server) }),
		Each("rmem_c", as, bs, func(c results.Cell) float64 { return float64(c.ReceiveMemory.Client) }),
	}, ""
}

// rmemAcc merges the ranks' receive memory: each rank's clients register
// their own buffers, so the clients' sum; the server is one, and each rank
// recorded its receives for the whole job's connections, so the merged
// server's is theirs (the largest, should they differ).
type rmemAcc struct{ m *results.ReceiveMemory }

func (a *rmemAcc) Add(_ *results.Run, c results.Cell) error {
	r := c.ReceiveMemory
	if r == nil {
		return nil
	}
	if a.m == nil {
		a.m = &results.ReceiveMemory{}
	}
	a.m.Server = max(a.m.Server, r.Server)
	a.m.Client += r.Client
	return nil
}

func (a *rmemAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	c.ReceiveMemory = a.m
	return nil, nil
}
