package rdmakv

import (
	"math"
	"testing"
)

// The chosen threshold is the boundary the op's choices disagree with
// least, the other op's choices aside; a class out of line does not pull
// it down, and the classes that carried requests outvote the others.
func TestChosenThreshold(t *testing.T) {
	cls := func(op Op, choices ...Protocol) []AdaptiveClass {
		var out []AdaptiveClass
		for k, p := range choices {
			out = append(out, AdaptiveClass{Op: op, Lower: classLower(k), Upper: classUpper(k), Choice: p})
		}
		return append(out, AdaptiveClass{Op: op, Lower: classLower(len(choices)), Upper: math.MaxInt, Choice: Rendezvous})
	}
	E, R := Eager, Rendezvous
	state := append(cls(OpSet, E, E, E, R, R), cls(OpGet, E, E, E, E, E)...)
	for _, c := range []struct {
		op   Op
		want int
	}{{OpSet, 4}, {OpGet, 16}} {
		if got, ok := ChosenThreshold(state, c.op); !ok || got != c.want {
			t.Errorf("%v: threshold %d (%v), want %d", c.op, got, ok, c.want)
		}
	}
	if got, _ := ChosenThreshold(cls(OpSet, E, R, E, E), OpSet); got != 8 {
		t.Errorf("a rendezvous class among eager ones: threshold %d, want 8, above the eager ones", got)
	}
	// Sizes 8 to 31 start rendezvous at a threshold of 4, and the class of
	// 8 to 15 turns eager: the boundary follows it, whatever the class
	// of 4 to 7, which carried nothing, still says.
	busy := cls(OpGet, E, E, E, R, E, R, R)
	for k := 4; k <= 5; k++ {
		busy[k].RendezvousRequests = 10
	}
	if got, _ := ChosenThreshold(busy, OpGet); got != 16 {
		t.Errorf("the busy class of 8 to 15 eager: threshold %d, want 16", got)
	}
	busy[4].Choice = R
	if got, _ := ChosenThreshold(busy, OpGet); got != 4 {
		t.Errorf("the busy classes all rendezvous: threshold %d, want 4, where the idle classes put it", got)
	}
	if _, ok := ChosenThreshold(cls(OpSet, E), OpGet); ok {
		t.Error("a state without gets gave a get threshold")
	}
}

// A client starts from its eager threshold, 4 KiB by default: its state
// says so for both ops.
func TestChosenThresholdStarts(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithAdaptiveThreshold(AdaptiveConfig{}))
	for _, op := range []Op{OpSet, OpGet} {
		if got, ok := ChosenThreshold(c.AdaptiveState(), op); !ok || got != DefaultEagerThreshold {
			t.Errorf("%v: a new client's threshold %d (%v), want %d", op, got, ok, DefaultEagerThreshold)
		}
	}
}
