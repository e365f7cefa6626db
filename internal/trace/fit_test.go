package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Buckets grow with the size, stay within an eighth of an octave, and the
// rows keep the sizes' count and mean.
func TestSizeHistBuckets(t *testing.T) {
	prev := -1
	for v := int64(0); v < 1<<32; v += 1 + v/97 {
		b := sizeBucket(v)
		if b < prev || b >= sizeBuckets {
			t.Fatalf("size %d in bucket %d after %d (of %d)", v, b, prev, sizeBuckets)
		}
		prev = b
	}
	for _, v := range []int64{0, 127, 128, 1<<32 - 1} {
		if b := sizeBucket(v); b < 0 || b >= sizeBuckets {
			t.Errorf("size %d: bucket %d", v, b)
		}
	}
	var h sizeHist
	lo := map[int]int64{}
	hi := map[int]int64{}
	var sum float64
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := int64(math.Exp(rng.Float64() * 20))
		h.add(v)
		sum += float64(v)
		b := sizeBucket(v)
		if l, ok := lo[b]; !ok || v < l {
			lo[b] = v
		}
		hi[b] = max(hi[b], v)
	}
	for b, l := range lo {
		if l >= sizeExact && float64(hi[b]) > float64(l)*1.125 {
			t.Errorf("bucket %d spans %d to %d", b, l, hi[b])
		}
	}
	var n int64
	var rsum float64
	for _, r := range h.rows() {
		n += r.Count
		rsum += float64(r.Size * r.Count)
	}
	if n != 100000 || math.Abs(rsum-sum)/sum > 1e-4 {
		t.Errorf("rows count %d sizes of mean %g, want 100000 of %g", n, rsum/float64(n), sum/100000)
	}
}

func fitTrace(t *testing.T, text string) string {
	t.Helper()
	f, err := FitWorkload(summarize(t, Kvbench, text), "t", "t.sizes.csv")
	if err != nil {
		t.Fatal(err)
	}
	return string(f.YAML)
}

// Without a fitted exponent the keys are uniform; too few key bytes for
// the count are raised; a trace without sets takes the hits' sizes.
func TestFitWorkloadApproximations(t *testing.T) {
	var b strings.Builder
	b.WriteString(KvbenchHeader + "\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%d,get,%c%d,%d\n", i*1e7, 'a'+i%3, i, 100*(i%2))
	}
	y := fitTrace(t, b.String())
	for _, want := range []string{
		"count: 200  # distinct keys in the trace",
		"size: 4  # the median recorded key size is 3; 4 bytes hold 200 keys",
		"distribution: uniform  # no zipf exponent",
		"The sizes of the trace's gets that hit",
		"mix: {get: 1, set: 0, delete: 0}",
		"rate: 100  # the trace's median",
	} {
		if !strings.Contains(y, want) {
			t.Errorf("lacks %q:\n%s", want, y)
		}
	}
	if _, err := FitWorkload(summarize(t, Kvbench, KvbenchHeader+"\n0,delete,k,0\n"), "t", "s.csv"); err == nil ||
		!strings.Contains(err.Error(), "no value sizes") {
		t.Errorf("a trace of one delete: %v", err)
	}
}
