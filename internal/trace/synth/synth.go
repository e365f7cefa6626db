// Package synth writes synthetic traces in Twitter's cache-trace format
// from a fixed seed, with known contents: the shipped
// workloads/traces/twitter-synthetic.csv.zst and the tests' traces. They
// are not recordings of anything.
//
// The model, per Config: Seconds whole seconds from timestamp 0, the i-th
// holding about Rate*(1 + 0.5 sin(2πi/Seconds)) requests give or take 10%;
// keys drawn from a zipfian over Keys keys with skew Theta (keygen's, so
// the key of rank r is requested with probability ∝ 1/r^Theta); each key
// keeps its key size (sizegen's ETC key sizes) and a current value size
// (ETC value sizes, at most 64 KiB), which a write redraws, a delete sets
// to 0 and a get reports. The operations are an exact mix: Mix gives each
// operation's share in thousandths, the counts are floor(share*total/1000)
// and get takes the remainder, and their order is a seeded shuffle.
package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/sizegen"
)

//go:generate go run ./gen -o ../../../workloads/traces/twitter-synthetic.csv.zst

// Op is one of Twitter's operations and its share of the requests.
type Op struct {
	Name     string
	PerMille int
}

// Mix is the operation mix of Default: every operation the Twitter
// format has, get the most.
var Mix = []Op{
	{"get", 700}, {"gets", 50}, {"set", 150}, {"add", 20}, {"replace", 10},
	{"cas", 10}, {"append", 5}, {"prepend", 5}, {"delete", 30},
	{"incr", 15}, {"decr", 5},
}

// Config shapes a synthetic trace.
type Config struct {
	Seed    uint64
	Seconds int
	Rate    int // mean requests per second
	Keys    int
	Theta   float64 // zipfian skew, in (0, 1)
	Clients int
	Mix     []Op // shares in thousandths, summing to 1000
}

// Default is the shipped trace's configuration.
var Default = Config{Seed: 1, Seconds: 60, Rate: 300, Keys: 4000, Theta: 0.99, Clients: 16, Mix: Mix}

// Summary is what a synthetic trace holds, exactly.
type Summary struct {
	Requests int64
	// Ops counts each Twitter operation by name.
	Ops map[string]int64
	// Get, Set and Delete count them as rdmakv's ops (see trace's Twitter
	// format).
	Get, Set, Delete int64
	// PerSecond is each second's request count.
	PerSecond []int64
	// DistinctKeys is how many distinct keys were requested.
	DistinctKeys int
	// TopCount is the most requested key's count.
	TopCount int64
}

// Header is the comment line the trace starts with.
func Header(c Config) string {
	return fmt.Sprintf("# Synthetic trace in Twitter's cache-trace format, not a recording: "+
		"made by kvbench's internal/trace/synth, seed %d, %d s, %d keys, zipfian %v", c.Seed, c.Seconds, c.Keys, c.Theta)
}

// Twitter writes the trace c describes to w and says what it holds.
func Twitter(w io.Writer, c Config) (Summary, error) {
	if c.Seconds < 1 || c.Rate < 1 || c.Keys < 1 || c.Clients < 1 {
		return Summary{}, fmt.Errorf("synth: seconds, rate, keys and clients must be >= 1")
	}
	total := 0
	for _, op := range c.Mix {
		total += op.PerMille
	}
	if total != 1000 || len(c.Mix) == 0 || c.Mix[0].Name != "get" {
		return Summary{}, fmt.Errorf("synth: the mix must start with get and sum to 1000")
	}
	r := keygen.NewRand(c.Seed, 0)
	zipf, err := keygen.NewZipfian(int64(c.Keys), c.Theta)
	if err != nil {
		return Summary{}, err
	}

	s := Summary{Ops: map[string]int64{}, PerSecond: make([]int64, c.Seconds)}
	for i := range s.PerSecond {
		mean := float64(c.Rate) * (1 + 0.5*math.Sin(2*math.Pi*float64(i)/float64(c.Seconds)))
		n := int64(mean * (0.9 + 0.2*r.Float64()))
		s.PerSecond[i] = max(n, 1)
		s.Requests += s.PerSecond[i]
	}

	// The exact mix, shuffled.
	ops := make([]string, 0, s.Requests)
	for _, op := range c.Mix[1:] {
		n := int64(op.PerMille) * s.Requests / 1000
		for range n {
			ops = append(ops, op.Name)
		}
	}
	for int64(len(ops)) < s.Requests {
		ops = append(ops, "get")
	}
	r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })

	// Each key's name, key size and current value size.
	keySizes, valueSizes := sizegen.ETCKey(), sizegen.Clamp(sizegen.ETC(), 1, 64<<10)
	names := make([]string, c.Keys)
	ksize := make([]int, c.Keys)
	vsize := make([]int, c.Keys)
	// Key i's name: a namespace and an anonymized-looking id, the rank
	// scrambled so that the hot keys are not the first names.
	spaces := []string{"nz:u:", "nz:t:", "q:m:", "w:"}
	for i := range names {
		names[i] = spaces[i%len(spaces)] + anonymize(uint64(i)*0x9e3779b97f4a7c15^c.Seed)
		ksize[i] = max(keySizes.Next(r), 1)
		vsize[i] = valueSizes.Next(r)
	}

	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, Header(c))
	count := make([]int64, c.Keys)
	seq := 0
	for sec, n := range s.PerSecond {
		for range n {
			op := ops[seq]
			seq++
			k := zipf.Next(r)
			count[k]++
			ttl := 0
			switch op {
			case "get", "gets":
			case "delete":
				vsize[k] = 0
			case "incr", "decr":
				vsize[k] = 1 + r.IntN(8)
				ttl = 3600
			default:
				vsize[k] = valueSizes.Next(r)
				ttl = []int{60, 3600, 86400}[r.IntN(3)]
			}
			v := vsize[k]
			if op == "delete" {
				v = 0
			}
			fmt.Fprintf(bw, "%d,%s,%d,%d,%d,%s,%d\n", sec, names[k], ksize[k], v, 1+r.IntN(c.Clients), op, ttl)
			s.Ops[op]++
		}
	}
	for name, n := range s.Ops {
		switch name {
		case "get", "gets":
			s.Get += n
		case "delete":
			s.Delete += n
		default:
			s.Set += n
		}
	}
	for _, n := range count {
		if n > 0 {
			s.DistinctKeys++
		}
		s.TopCount = max(s.TopCount, n)
	}
	return s, bw.Flush()
}

// anonymize renders x as 11 base-62 digits (62^11 > 2^64, so distinct x give distinct ids).
func anonymize(x uint64) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	var b [11]byte
	for i := range b {
		b[i] = digits[x%62]
		x /= 62
	}
	return string(b[:])
}
