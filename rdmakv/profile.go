package rdmakv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// ProfileVersion is the profile format this package reads and writes.
const ProfileVersion = 1

// Profile: an eager threshold per op, optionally per load band. kvbench
// tune writes one (profile.json) where it finds the protocols' crossovers;
// WithProfile applies one.
type Profile struct {
	Version int           `json:"kvbench_profile"`   // 1
	Source  string        `json:"source,omitempty"`  // what made it, e.g. the tune run and build
	Default int           `json:"default_threshold"` // where no rule applies
	Rules   []ProfileRule `json:"rules"`

	// name is the file the profile was read from, for errors.
	name string
}

// ProfileRule is one op's threshold over a band of load. A band [lo, hi]
// holds the loads of lo to hi requests in flight, inclusive; hi 0 leaves
// it unbounded above, so [0, 0] holds every load.
type ProfileRule struct {
	Op        string `json:"op"`                  // "get" or "set"
	InFlight  [2]int `json:"in_flight,omitempty"` // [lo, hi]: the application's requests in flight (connections x depth), inclusive; [0,0] = any load
	Threshold int    `json:"threshold"`
	Sizes     [2]int `json:"sizes,omitempty"` // the value sizes the threshold was measured over: evidence, not a filter
}

// holds says the rule's band holds a load of inFlight requests.
func (r *ProfileRule) holds(inFlight int) bool {
	lo, hi := r.band()
	return lo <= inFlight && inFlight <= hi
}

// band is the rule's in-flight band with an open end made explicit.
func (r *ProfileRule) band() (lo, hi int) {
	lo, hi = r.InFlight[0], r.InFlight[1]
	if hi == 0 {
		hi = math.MaxInt
	}
	return lo, hi
}

// UnmarshalJSON takes a band as exactly two numbers: encoding/json would
// pad a shorter array with zeros or drop the rest of a longer one, and a
// band of [8] would silently become [8, 0], unbounded.
func (r *ProfileRule) UnmarshalJSON(data []byte) error {
	type plain ProfileRule
	var v struct {
		plain
		InFlight []int `json:"in_flight"`
		Sizes    []int `json:"sizes"`
	}
	if err := strictJSON(data, &v); err != nil {
		return err
	}
	*r = ProfileRule(v.plain)
	for _, f := range [...]struct {
		name string
		in   []int
		out  *[2]int
	}{{"in_flight", v.InFlight, &r.InFlight}, {"sizes", v.Sizes, &r.Sizes}} {
		if f.in != nil && len(f.in) != 2 {
			return fmt.Errorf("%s %v: want two numbers, [lo, hi]", f.name, f.in)
		}
		if f.in != nil {
			*f.out = [2]int(f.in)
		}
	}
	return nil
}

// strictJSON decodes one JSON value from data into v, refusing unknown
// fields and anything after the value.
func strictJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("data after the profile")
	}
	return nil
}

// ParseProfile reads a profile from data, strictly (unknown fields are
// refused), and validates it. name, the file's name, begins every error.
func ParseProfile(name string, data []byte) (*Profile, error) {
	p := &Profile{}
	if err := strictJSON(data, p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p.name = name
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadProfile reads and validates the profile in the file at path.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseProfile(path, data)
}

// Thresholds are the get and set thresholds at a load of inFlight
// requests: each op's first rule whose band holds it, else Default.
func (p *Profile) Thresholds(inFlight int) (get, set int) {
	get, set = p.Default, p.Default
	var gotGet, gotSet bool
	for i := range p.Rules {
		r := &p.Rules[i]
		switch {
		case !r.holds(inFlight):
		case r.Op == "get" && !gotGet:
			get, gotGet = r.Threshold, true
		case r.Op == "set" && !gotSet:
			set, gotSet = r.Threshold, true
		}
	}
	return get, set
}

// label names the profile in errors: its file, else its source.
func (p *Profile) label() string {
	switch {
	case p.name != "":
		return p.name
	case p.Source != "":
		return fmt.Sprintf("%q", p.Source)
	}
	return "(unnamed)"
}
