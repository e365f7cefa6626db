package tune

import (
	"context"
	"reflect"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

func TestBands(t *testing.T) {
	loads := func(ls ...Load) []LoadResult {
		out := make([]LoadResult, len(ls))
		for i, l := range ls {
			out[i].Load = l
		}
		return out
	}
	c1, c4, c16 := Load{Connections: 1, Depth: 1}, Load{Connections: 4, Depth: 1}, Load{Connections: 16, Depth: 1}
	for _, c := range []struct {
		name  string
		loads []LoadResult
		want  [][2]int
	}{
		{"one", loads(c16), [][2]int{{0, 0}}},
		{"two", loads(c1, c16), [][2]int{{1, 4}, {5, 0}}},
		{"three, unordered", loads(c16, c1, c4), [][2]int{{9, 0}, {1, 2}, {3, 8}}},
		{"adjacent", loads(c1, Load{Connections: 1, Depth: 2}), [][2]int{{1, 1}, {2, 0}}},
		{"same in flight", loads(c4, Load{Connections: 1, Depth: 4}, Load{Connections: 4, Depth: 1, Rate: 1000}), [][2]int{{0, 0}, {0, 0}, {0, 0}}},
		{"same in flight and another", loads(c4, Load{Connections: 2, Depth: 2}, c16), [][2]int{{1, 8}, {1, 8}, {9, 0}}},
	} {
		if got := bands(c.loads); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: bands %v, want %v", c.name, got, c.want)
		}
	}
}

// At each load each op gets its own crossover, over the band around the
// load; where a load finds none there is no rule, and the default is
// rdmakv's when the loads disagree.
func TestProfilePerLoadAndOp(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []int
		want  []rdmakv.ProfileRule
	}{
		{"both loads", pow2(64, 65536), []rdmakv.ProfileRule{
			{Op: "get", InFlight: [2]int{1, 4}, Threshold: 8192, Sizes: [2]int{64, 65536}},
			{Op: "set", InFlight: [2]int{1, 4}, Threshold: 8192, Sizes: [2]int{64, 65536}},
			{Op: "get", InFlight: [2]int{5, 0}, Threshold: 512, Sizes: [2]int{64, 65536}},
			{Op: "set", InFlight: [2]int{5, 0}, Threshold: 512, Sizes: [2]int{64, 65536}},
		}},
		{"none at one connection", pow2(64, 2048), []rdmakv.ProfileRule{
			{Op: "get", InFlight: [2]int{5, 0}, Threshold: 512, Sizes: [2]int{64, 2048}},
			{Op: "set", InFlight: [2]int{5, 0}, Threshold: 512, Sizes: [2]int{64, 2048}},
		}},
	} {
		cfg := Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: c.sizes, Repeats: 5, KeySize: 16, Loads: c1c16}
		res, err := Run(context.Background(), cfg, newLoadModel(1))
		if err != nil {
			t.Fatal(err)
		}
		res.Build = Build{Version: "v1", Revision: "abc"}
		p := res.Profile("sweep")
		if p == nil || !reflect.DeepEqual(p.Rules, c.want) || p.Default != rdmakv.DefaultEagerThreshold {
			t.Errorf("%s: profile %+v, want rules %+v", c.name, p, c.want)
			continue
		}
		if err := p.Validate(); err != nil || p.Source != "kvbench tune sweep, by p50, kvbench v1 abc" {
			t.Errorf("%s: source %q, validate: %v", c.name, p.Source, err)
		}
	}
}

// A tune that found no threshold anywhere keeps no profile.
func TestProfileNone(t *testing.T) {
	cfg := Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1024), Repeats: 5, KeySize: 16, Loads: c1c16[:1]}
	res, err := Run(context.Background(), cfg, newLoadModel(1))
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Profile("small"); p != nil {
		t.Errorf("profile %+v from a tune that found nothing", p)
	}
}
