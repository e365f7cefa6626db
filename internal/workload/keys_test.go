package workload

import (
	"strconv"
	"testing"

	"github.com/kvbench/kvbench/internal/keygen"
)

// Every distribution keygen draws is one a workload may name, and the
// defaults it is given then build a generator.
func TestEveryDistributionBuilds(t *testing.T) {
	for _, d := range keygen.Distributions {
		w, err := Parse("t.yaml", []byte("values: {sizes: [64]}\nkeys: {distribution: "+d+"}\n"))
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		if _, err := keygen.New(w.Keys.Spec()); err != nil {
			t.Errorf("%s with the defaults: %v", d, err)
		}
	}
}

// A key count fills its key size exactly and goes no further: the keys
// are 'k' and size-1 decimal digits.
func TestKeyCountUpToCapacity(t *testing.T) {
	for _, size := range []int{1, 2, 4, 7} {
		keys := func(n int64) []byte {
			return []byte("values: {sizes: [64]}\nkeys: {size: " + strconv.Itoa(size) + ", count: " + strconv.FormatInt(n, 10) + "}\n")
		}
		full := keygen.Capacity(size)
		if _, err := Parse("t.yaml", keys(full)); err != nil {
			t.Errorf("size %d count %d refused: %v", size, full, err)
		}
		if _, err := Parse("t.yaml", keys(full+1)); err == nil {
			t.Errorf("size %d count %d accepted beyond what the keys hold", size, full+1)
		}
	}
}
