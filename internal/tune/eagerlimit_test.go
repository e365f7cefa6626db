package tune

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

func TestEagerUnsupported(t *testing.T) {
	m := newLinear(6)
	m.EagerBase, m.EagerPerByte = 100, 0.01 // eager always faster where it can go
	m.MaxEager = 16384
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(4096, 65536), Repeats: 5}, m)
	if err != nil {
		t.Fatal(err)
	}
	// Eager refused at 32KiB and 64KiB is no rendezvous win: the limit is
	// not a crossover.
	o := res.Loads[0].Ops[0]
	if o.Found || o.Crossover != 0 || o.Threshold != 0 || res.Recommended != 0 {
		t.Errorf("found=%v crossover=%d threshold=%d recommended=%d", o.Found, o.Crossover, o.Threshold, res.Recommended)
	}
	if fmt.Sprint(o.EagerUnmeasured) != "[32768 65536]" {
		t.Errorf("eager unmeasured %v", o.EagerUnmeasured)
	}
	for _, p := range o.Points {
		if want := p.Size > 16384; (p.Winner == "unmeasured") != want {
			t.Errorf("%d: winner %q", p.Size, p.Winner)
		}
	}
	// Eager is tried once per unsupported size, then skipped.
	n := 0
	for _, c := range m.calls {
		if c == "get/65536/eager" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("eager at 64KiB tried %d times", n)
	}
}

// limitedRun tunes get over 64B..256KiB against a fake external server that
// refuses eager above 32KiB, as a server with max eager 64KiB refuses
// 64KiB values with their key: the real case that once recommended the
// limit as the crossover.
func limitedRun(t *testing.T, m *linear) *Result {
	t.Helper()
	m.MaxEager = 32768
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 256<<10), Repeats: 5, KeySize: 16}, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLoneWinBelowLimitIsNotACrossover(t *testing.T) {
	s := []Sample{{P50: 1}}
	pt := func(size int, winner Winner) Point {
		return Point{Size: size, Eager: s, Rendezvous: s, Winner: winner}
	}
	unmeasured := Point{Size: 8192, Rendezvous: s, Winner: WinUnmeasured}
	o := Analyze(rdmakv.OpGet, []Point{pt(1024, WinEager), pt(2048, WinTie), pt(4096, WinRendezvous), unmeasured}, 0)
	if o.Found || o.Outcome != OutcomeLastAtLimit || o.To != 4096 || o.Limit != 8192 {
		t.Errorf("found=%v outcome %d to %d, limit %d", o.Found, o.Outcome, o.To, o.Limit)
	}
	o = Analyze(rdmakv.OpGet, []Point{{Size: 64, Rendezvous: s}, {Size: 128, Rendezvous: s}}, 0)
	if o.Found || o.Outcome != OutcomeNoEager || o.From != 64 || o.To != 128 {
		t.Errorf("found=%v outcome %d from %d to %d", o.Found, o.Outcome, o.From, o.To)
	}
}

func TestCheckEagerLimit(t *testing.T) {
	c := Config{Sizes: []int{1 << 20, 16<<20 - 17, 16 << 20, 32 << 20}, KeySize: 16}
	err := c.CheckEagerLimit(rdmakv.MaxEagerLimit)
	for _, want := range []string{"value size 16MiB needs eager threshold 16777233", "largest max eager 16777216 (16MiB)",
		"eager could not be measured at 16MiB, 32MiB", "at or below 16777199 bytes"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	c.Sizes = c.Sizes[:2] // 16 MiB - 17 with a 16-byte key: threshold exactly 16 MiB
	if err := c.CheckEagerLimit(rdmakv.MaxEagerLimit); err != nil {
		t.Errorf("within the bound: %v", err)
	}
}
