package workload

import (
	"slices"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/sizegen"
	"gopkg.in/yaml.v3"
)

// decodeField decodes keys.size when it is not an integer: a size with a
// unit ("36B"), or a distribution as values.distribution is written, etc
// then naming the ETC pool's key sizes (sizegen.ParseKey).
func (k *Keys) decodeField(d *decoder, name string, n *yaml.Node, path string) bool {
	n = resolveNode(n)
	if name != "size" || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		return false
	}
	isStr := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str"
	if isStr {
		if s, err := ParseSize(n.Value); err == nil {
			k.Size = int(s)
			return true
		}
	}
	if n.Kind == yaml.MappingNode || isStr && slices.Contains(sizegen.Distributions, n.Value) {
		k.SizeDistribution = d.law(n, path, sizegen.ParseKey)
		return true
	}
	d.fail(n, path, "want a key size like 16 or \"36B\", or a distribution like {etc: , max: 250B}, got %s", describe(n))
	return true
}

// SizeLaw is the law each key's size is drawn from, nil when every key
// has Size bytes: keys.size's distribution, with every size below
// keygen.SizeFor(Count) raised to it, so that the keys stay distinct ('k'
// and the key's index in decimal, zero-padded to its size), as mutilate
// raises its ETC keys to the digits of the key count.
func (k Keys) SizeLaw() sizegen.Distribution {
	if k.SizeDistribution == nil || k.SizeDistribution.law == nil {
		return nil
	}
	law := k.SizeDistribution.law
	if least := keygen.SizeFor(int64(k.Count)); least > law.Min() {
		return sizegen.Clamp(law, least, law.Max()).(sizegen.Distribution)
	}
	return law
}

// checkKeyLaw checks keys.size given as a distribution: its largest key
// is one a key may be, and it holds keys.count keys.
func (w *Workload) checkKeyLaw(c *checker) {
	d := w.Keys.SizeDistribution
	checkLawMax(c, "keys.size", d, MaxKeySize, "a key", "250B")
	if d.law == nil || d.tail != "" || d.law.Max() > MaxKeySize {
		return
	}
	if least := keygen.SizeFor(int64(w.Keys.Count)); least > d.law.Max() {
		c.add("keys.count", "%d keys need keys of at least %d bytes ('k' and %d decimal digits), above every size keys.size draws (up to %d)%s; raise its max",
			w.Keys.Count, least, least-1, d.law.Max(), c.line("keys.size"))
	}
}
