package compare

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/results"
)

// pair is a key of A matched with one of B, by their indexes in the keys
// given to match, and the key the comparison shows for them.
type pair struct {
	a, b int
	key  Key
}

// match pairs the keys of A with B's. Runs of one kind of store match on
// the whole key. Runs of different kinds match on op and value size
// alone, since a baseline store has no threshold and no eager or
// rendezvous: each rdmakv cell is set beside the baseline's cell of its
// size and shown under its own key; two baselines are shown by op and
// size.
func match(as, bs []Key, kindA, kindB string) (pairs []pair, onlyA, onlyB []Key) {
	loose := kindA != kindB
	on := func(k Key) Key {
		if loose {
			return Key{Op: k.Op, ValueSize: k.ValueSize, Distribution: k.Distribution}
		}
		return k
	}
	byB := map[Key][]int{}
	for j, k := range bs {
		if loose {
			byB[on(k)] = append(byB[on(k)], j)
		} else {
			byB[k] = []int{j} // as before kinds: a repeated key's last cell
		}
	}
	inA := map[Key]bool{}
	for i, k := range as {
		inA[on(k)] = true
		if len(byB[on(k)]) == 0 {
			onlyA = append(onlyA, k)
		}
		for _, j := range byB[on(k)] {
			pairs = append(pairs, pair{i, j, shownKey(k, bs[j], kindA, kindB)})
		}
	}
	for _, k := range bs {
		if !inA[on(k)] {
			onlyB = append(onlyB, k)
		}
	}
	return pairs, onlyA, onlyB
}

// shownKey is the key of a matched pair: A's, unless the kinds differ,
// when it is the rdmakv side's, or op and size between two baselines.
func shownKey(a, b Key, kindA, kindB string) Key {
	switch {
	case kindA == kindB || kindA == results.KindRdmakv:
		return a
	case kindB == results.KindRdmakv:
		return b
	}
	return Key{Op: a.Op, ValueSize: a.ValueSize, Distribution: a.Distribution}
}

// targetNote says, when A and B measured different kinds of store, what
// each measured and how their cells were matched; "" for one kind.
func targetNote(a, b *results.Run) string {
	if a.TargetKind() == b.TargetKind() {
		return ""
	}
	return fmt.Sprintf("A measured %s, B measured %s; cells are matched by op and value size", storeName(a), storeName(b))
}

// storeName is "redis 7.0.15", or "rdmakv (tcp)": an rdmakv run's
// transport is how it was reached, not a version of the store.
func storeName(r *results.Run) string {
	if r.TargetKind() == results.KindRdmakv && r.Transport.Name != "" {
		return fmt.Sprintf("%s (%s)", results.KindRdmakv, r.Transport.Name)
	}
	return r.TargetLabel()
}

// keysOf are the cells' keys, in order.
func keysOf(cells []results.Cell) []Key {
	keys := make([]Key, len(cells))
	for i, c := range cells {
		keys[i] = keyOf(c)
	}
	return keys
}

// baseline says the key has no threshold: a baseline store's cell, or
// two baselines' matched by op and size.
func (k Key) baseline() bool { return k.Protocol == "" || results.BaselineStore(k.Store) }
