package figure

import (
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// The ranks' clients register their own receives, which add; the server
// is one, each rank having recorded its receives for the whole job.
func TestReceiveMemoryMerge(t *testing.T) {
	m := ReceiveMemory.Merge.New()
	for _, r := range []*results.ReceiveMemory{{Server: 4 << 20, Client: 1 << 10}, nil, {Server: 4 << 20, Client: 3 << 10}} {
		if err := m.Add(nil, results.Cell{ReceiveMemory: r}); err != nil {
			t.Fatal(err)
		}
	}
	var c results.Cell
	if issues, err := m.Put(&c, Job{Parts: 3, AllRanks: true}); err != nil || len(issues) != 0 {
		t.Fatalf("%v, %v", issues, err)
	}
	if c.ReceiveMemory == nil || *c.ReceiveMemory != (results.ReceiveMemory{Server: 4 << 20, Client: 4 << 10}) {
		t.Errorf("merged %+v, want the server's 4MiB and the clients' 4KiB", c.ReceiveMemory)
	}
	none := ReceiveMemory.Merge.New()
	_ = none.Add(nil, results.Cell{})
	c = results.Cell{}
	if _, _ = none.Put(&c, Job{Parts: 1}); c.ReceiveMemory != nil {
		t.Errorf("no rank has it: merged %+v", c.ReceiveMemory)
	}
	if got := ReceiveMemory.Text(3 << 20); got != "3MiB" {
		t.Errorf("text %q, want 3MiB", got)
	}
}
