package bench

import (
	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/sizegen"
)

// KeySize is the size of key index key in a run with seed when its keys'
// sizes follow law (workload.Keys.SizeLaw): law's draw from a source
// seeded by a hash of (seed, key). It depends on the key alone, not on an
// operation or a version, so every operation on a key index sends the
// same key: gets find what sets wrote, and verify mode can check them.
func KeySize(law sizegen.Distribution, seed uint64, key int64) int {
	return newKeySizer(law, seed).size(key, 0)
}

// keySeed sets the key sizes' seeds apart from the value sizes'.
const keySeed = 0x9fb21c651e98df25

func newKeySizer(law sizegen.Distribution, seed uint64) *sizer { return newSizer(law, seed^keySeed) }

// keySizer is the worker's draw of its keys' sizes, nil when every key has
// keys.size bytes.
func (c *Config) keySizer() *sizer {
	if law := c.Keys.SizeLaw(); law != nil {
		return newKeySizer(law, c.Seed)
	}
	return nil
}

// makeKey writes key index idx into w.key, at its drawn size when the run
// draws them; w.key holds the longest key, so this does not allocate.
func (w *worker) makeKey(idx int64) {
	size := w.keySize
	if w.keySizes != nil {
		size = w.keySizes.size(idx, 0)
	}
	w.key = keygen.Key(w.key, idx, size)
}
