package rdmakv

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const goodProfile = `{
  "kvbench_profile": 1,
  "source": "kvbench tune etc",
  "default_threshold": 4096,
  "rules": [
    {"op": "get", "in_flight": [1, 4], "threshold": 1024, "sizes": [64, 65536]},
    {"op": "get", "in_flight": [5, 0], "threshold": 16384},
    {"op": "set", "threshold": 256}
  ]
}`

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile("profile.json", []byte(goodProfile))
	if err != nil {
		t.Fatal(err)
	}
	want := []ProfileRule{
		{Op: "get", InFlight: [2]int{1, 4}, Threshold: 1024, Sizes: [2]int{64, 65536}},
		{Op: "get", InFlight: [2]int{5, 0}, Threshold: 16384},
		{Op: "set", Threshold: 256},
	}
	if p.Version != 1 || p.Default != 4096 || p.Source != "kvbench tune etc" || !reflect.DeepEqual(p.Rules, want) {
		t.Errorf("parsed %+v", p)
	}
}

func TestParseProfileRefuses(t *testing.T) {
	rule := func(r string) string {
		return `{"kvbench_profile": 1, "default_threshold": 4096, "rules": [` + r + `]}`
	}
	for _, c := range []struct{ name, data, want string }{
		{"version", `{"kvbench_profile": 2, "default_threshold": 4096}`, "profile.json: kvbench_profile 2: want 1"},
		{"no version", `{"default_threshold": 4096}`, "profile.json: kvbench_profile 0: want 1"},
		{"unknown field", `{"kvbench_profile": 1, "threshold": 5}`, `profile.json: json: unknown field "threshold"`},
		{"unknown rule field", rule(`{"op": "get", "threshold": 5, "depth": 1}`), `profile.json: json: unknown field "depth"`},
		{"trailing", `{"kvbench_profile": 1} {}`, "profile.json: data after the profile"},
		{"op", rule(`{"op": "get", "threshold": 5}, {"op": "set", "threshold": 5}, {"op": "put", "threshold": 5}`),
			`profile.json: rule 3: op "put": want get or set`},
		{"default", `{"kvbench_profile": 1, "default_threshold": -1}`, "profile.json: default_threshold -1: want 0 to 16777216"},
		{"threshold", rule(`{"op": "set", "threshold": 16777217}`), "profile.json: rule 1: threshold 16777217: want 0 to 16777216"},
		{"band order", rule(`{"op": "set", "in_flight": [8, 2], "threshold": 5}`), "profile.json: rule 1: in_flight [8 2]: want 0 <= lo <= hi"},
		{"band short", rule(`{"op": "set", "in_flight": [8], "threshold": 5}`), "profile.json: in_flight [8]: want two numbers, [lo, hi]"},
		{"sizes long", rule(`{"op": "set", "sizes": [1, 2, 3], "threshold": 5}`), "profile.json: sizes [1 2 3]: want two numbers, [lo, hi]"},
		{"overlap", rule(`{"op": "get", "in_flight": [1, 8], "threshold": 5}, {"op": "set", "threshold": 5}, {"op": "get", "in_flight": [8, 0], "threshold": 6}`),
			"profile.json: rule 3: get band [8 0] overlaps rule 1's [1 8]"},
		{"any overlaps", rule(`{"op": "set", "threshold": 5}, {"op": "set", "in_flight": [100, 200], "threshold": 6}`),
			"profile.json: rule 2: set band [100 200] overlaps rule 1's [0 0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseProfile("profile.json", []byte(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// Validate says every problem at once, each naming the file.
func TestValidateProfileAll(t *testing.T) {
	_, err := ParseProfile("p.json", []byte(`{"kvbench_profile": 3, "default_threshold": 16777217,
		"rules": [{"op": "del", "threshold": -2}]}`))
	want := "p.json: kvbench_profile 3: want 1\n" +
		"p.json: default_threshold 16777217: want 0 to 16777216\n" +
		"p.json: rule 1: op \"del\": want get or set\n" +
		"p.json: rule 1: threshold -2: want 0 to 16777216"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestProfileThresholds(t *testing.T) {
	p, err := ParseProfile("profile.json", []byte(goodProfile))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ inFlight, get, set int }{
		{0, 4096, 256}, {1, 1024, 256}, {4, 1024, 256}, {5, 16384, 256}, {1 << 20, 16384, 256},
	} {
		if g, s := p.Thresholds(c.inFlight); g != c.get || s != c.set {
			t.Errorf("Thresholds(%d) = get %d, set %d; want %d, %d", c.inFlight, g, s, c.get, c.set)
		}
	}
	none := &Profile{Version: 1, Default: 777}
	if g, s := none.Thresholds(3); g != 777 || s != 777 {
		t.Errorf("no rules: Thresholds = %d, %d; want the default twice", g, s)
	}
}

// FuzzParseProfile: no input panics, and what parses writes back as JSON
// that parses to the same profile.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte(goodProfile))
	f.Add([]byte(`{"kvbench_profile": 1, "rules": [{"op": "get", "in_flight": [3, 1]}]}`))
	f.Add([]byte(`{"kvbench_profile": 1, "rules": [{"op": "set", "sizes": [1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz", data)
		if err != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseProfile("fuzz", out)
		if err != nil {
			t.Fatalf("%s: written back as %s: %v", data, out, err)
		}
		if !reflect.DeepEqual(p, back) {
			t.Fatalf("%s: read back as %+v, was %+v", out, back, p)
		}
	})
}
