package sizegen_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/kvbench/kvbench/internal/sizegen"
	"gopkg.in/yaml.v3"
)

// A workload's value sizes as memtier's --data-size-list
// 64:70,4096:20,65536:10 would give them, capped at 16 KiB; each worker
// draws from its own random source.
func Example() {
	var spec yaml.Node
	if err := yaml.Unmarshal([]byte("weighted: {64B: 70, 4KiB: 20, 64KiB: 10}\nmax: 16KiB\n"), &spec); err != nil {
		panic(err)
	}
	d, err := sizegen.Parse(&spec, nil)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	sizes := make([]int, 12)
	for i := range sizes {
		sizes[i] = d.Next(r)
	}
	fmt.Println(sizes)
	fmt.Printf("mean %.1f bytes, from %d to %d, P(4KiB) = %.2f\n", d.Mean(), d.Min(), d.Max(), sizegen.Mass(d, 4096))
	// Output:
	// [64 64 64 64 64 64 4096 4096 64 64 64 4096]
	// mean 2502.4 bytes, from 64 to 16384, P(4KiB) = 0.20
}
