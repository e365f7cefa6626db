package sizegen

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kvbench/kvbench/internal/units"
	"gopkg.in/yaml.v3"
)

// Distributions lists the names a spec may give; the workload schema takes
// its names from here.
var Distributions = []string{"weighted", "uniform", "gpd", "etc", "histogram"}

// Error is one problem in a size spec or a histogram file, at a 1-based
// line and, for a spec, column. Parse and ReadHistogram return every
// problem as Errors joined with errors.Join.
type Error struct {
	Line, Col int    // 0 when the problem is with the input as a whole
	Path      string // the spec's field at fault: "weighted.64B", "gpd.scale"; "" for the spec itself
	Msg       string
}

func (e *Error) Error() string {
	var where string
	switch {
	case e.Line > 0 && e.Col > 0:
		where = fmt.Sprintf("line %d, column %d: ", e.Line, e.Col)
	case e.Line > 0:
		where = fmt.Sprintf("line %d: ", e.Line)
	}
	if e.Path != "" {
		where += e.Path + ": "
	}
	return where + e.Msg
}

// Parse reads a size distribution as a workload gives it (a later
// values.distribution field), from the YAML node of its value:
//
//	etc
//	weighted: {64B: 70, 4KiB: 20, 64KiB: 10}
//	uniform: {min: 1KiB, max: 64KiB}
//	gpd: {scale: 214.476, shape: 0.348238, location: 15}
//	histogram: sizes.csv
//
// A mapping may also give min and max, to which every size is clamped;
// min defaults to 1 byte and may not be lower, so no value is ever empty.
// Sizes are byte counts with optional units, as units.ParseBytes reads
// them. A histogram file (see ReadHistogram) is opened in fsys; with a nil
// fsys histograms are refused.
//
// Every problem is returned, joined, each an *Error at the line and column
// of the node at fault.
func Parse(n *yaml.Node, fsys fs.FS) (Distribution, error) {
	return parse(n, fsys, func() Distribution { return ETC() })
}

// ParseKey reads a key size distribution (a workload's keys.size given as
// a distribution) as Parse reads a value size one, except that etc names
// the ETC pool's key sizes (ETCKey) rather than its value sizes.
func ParseKey(n *yaml.Node, fsys fs.FS) (Distribution, error) {
	return parse(n, fsys, func() Distribution { return ETCKey() })
}

// parse is Parse with etc the law that etc returns.
func parse(n *yaml.Node, fsys fs.FS, etc func() Distribution) (Distribution, error) {
	p := &parser{fsys: fsys, etc: etc}
	d := p.spec(n)
	if len(p.errs) == 0 {
		return d, nil
	}
	slices.SortStableFunc(p.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	errs := make([]error, len(p.errs))
	for i, e := range p.errs {
		errs[i] = e
	}
	return nil, errors.Join(errs...)
}

type parser struct {
	fsys fs.FS
	etc  func() Distribution
	errs []*Error
}

func (p *parser) fail(n *yaml.Node, path, format string, args ...any) {
	p.errs = append(p.errs, &Error{Line: n.Line, Col: n.Column, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// resolve follows aliases and steps into a document.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode && len(n.Content) == 1) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else {
			n = n.Content[0]
		}
	}
	return n
}

// examples show each distribution's form in messages.
var examples = map[string]string{
	"weighted":  "weighted: {64B: 70, 4KiB: 30}",
	"uniform":   "uniform: {min: 1KiB, max: 64KiB}",
	"gpd":       "gpd: {scale: 214.476, shape: 0.348238}",
	"etc":       "etc",
	"histogram": "histogram: sizes.csv",
}

func (p *parser) spec(n *yaml.Node) Distribution {
	n = resolve(n)
	switch {
	case n == nil || n.Kind == 0 || n.Kind == yaml.DocumentNode:
		p.errs = append(p.errs, &Error{Msg: "no size distribution given"})
		return nil
	case n.ShortTag() == "!!null":
		p.fail(n, "", "no size distribution given")
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		switch {
		case n.Value == "etc":
			return Clamp(p.etc(), 1, math.MaxInt).(Distribution)
		case examples[n.Value] != "":
			p.fail(n, "", "%s needs parameters, like %s", n.Value, examples[n.Value])
		default:
			p.fail(n, "", "unknown distribution %q (want one of %s)", n.Value, strings.Join(Distributions, ", "))
		}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "", "want a distribution like %s, got %s", examples["weighted"], describe(n))
		return nil
	}
	fields := p.fields(n, "", append(slices.Clone(Distributions), "min", "max"))
	var given []*field
	for _, name := range Distributions {
		if f := fields[name]; f != nil {
			given = append(given, f)
		}
	}
	slices.SortFunc(given, func(a, b *field) int {
		return cmp.Or(cmp.Compare(a.key.Line, b.key.Line), cmp.Compare(a.key.Column, b.key.Column))
	})
	var (
		d     Distribution
		which *field
	)
	switch {
	case len(given) > 0:
		which = given[0]
		for _, f := range given[1:] {
			p.fail(f.key, f.name, "give one distribution; %s is already given at line %d", which.name, which.key.Line)
		}
		d = p.dist(which)
	case len(fields) == len(n.Content)/2: // else a misspelt name is reported already
		p.fail(n, "", "no distribution: give one of %s", strings.Join(Distributions, ", "))
	}
	lo, hi := 1, math.MaxInt
	var minOK, maxOK bool
	if f := fields["min"]; f != nil {
		lo, minOK = p.size(f.val, "min")
	}
	if f := fields["max"]; f != nil {
		hi, maxOK = p.size(f.val, "max")
	}
	switch {
	case minOK && maxOK && hi < lo:
		p.fail(fields["max"].val, "max", "%s is below min %s", units.ExactBytes(int64(hi)), units.ExactBytes(int64(lo)))
	case d == nil:
	case maxOK && hi < d.Min():
		p.fail(fields["max"].val, "max", "%s is below every size %s draws (from %s)", units.ExactBytes(int64(hi)), which.name, units.ExactBytes(int64(d.Min())))
	case minOK && lo > d.Max():
		p.fail(fields["min"].val, "min", "%s is above every size %s draws (up to %s)", units.ExactBytes(int64(lo)), which.name, units.ExactBytes(int64(d.Max())))
	}
	if d == nil || len(p.errs) > 0 {
		return nil
	}
	return Clamp(d, lo, hi).(Distribution)
}

// field is one entry of a mapping.
type field struct {
	name     string
	key, val *yaml.Node
}

// fields reads mapping n, whose entries must be among allowed, reporting
// anything else.
func (p *parser) fields(n *yaml.Node, path string, allowed []string) map[string]*field {
	out := map[string]*field{}
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "want a mapping of %s, got %s", strings.Join(allowed, ", "), describe(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			p.fail(k, path, "want a field name, got %s", describe(k))
			continue
		}
		at := join(path, k.Value)
		if prev, dup := out[k.Value]; dup {
			p.fail(k, at, "given twice (first at line %d)", prev.key.Line)
			continue
		}
		if !slices.Contains(allowed, k.Value) {
			p.fail(k, at, "unknown field (want one of %s)", strings.Join(allowed, ", "))
			continue
		}
		out[k.Value] = &field{name: at, key: k, val: v}
	}
	return out
}

func (p *parser) dist(f *field) Distribution {
	n := f.val
	switch f.key.Value {
	case "etc":
		if !(n.ShortTag() == "!!null" || n.Kind == yaml.MappingNode && len(n.Content) == 0) {
			p.fail(n, f.name, "etc takes no parameters, got %s", describe(n))
			return nil
		}
		return p.etc()
	case "weighted":
		return p.weighted(n, f.name)
	case "uniform":
		fields := p.fields(n, f.name, []string{"min", "max"})
		lo, okLo := required(p, n, f.name, fields, "min", p.size)
		hi, okHi := required(p, n, f.name, fields, "max", p.size)
		if okLo && okHi && hi < lo {
			p.fail(fields["max"].val, fields["max"].name, "%s is below min %s", units.ExactBytes(int64(hi)), units.ExactBytes(int64(lo)))
		}
		if u, err := NewUniform(lo, hi); err == nil && okLo && okHi {
			return u
		}
	case "gpd":
		fields := p.fields(n, f.name, []string{"location", "scale", "shape"})
		scale, okScale := required(p, n, f.name, fields, "scale", p.number)
		shape, okShape := required(p, n, f.name, fields, "shape", p.number)
		loc, okLoc := 0.0, true
		if l := fields["location"]; l != nil {
			loc, okLoc = p.number(l.val, l.name)
		}
		if okScale && !(scale > 0) {
			p.fail(fields["scale"].val, fields["scale"].name, "want a number > 0, got %s", fields["scale"].val.Value)
		}
		if okLoc && !(loc >= 0) {
			p.fail(fields["location"].val, fields["location"].name, "want a number >= 0 (sizes are never negative), got %s", fields["location"].val.Value)
		}
		if g, err := NewGPD(loc, scale, shape); err == nil && okScale && okShape && okLoc {
			return g
		}
	case "histogram":
		return p.histogram(n, f.name)
	}
	return nil
}

// required reads the field name of the mapping n (at path) with read,
// reporting it missing.
func required[T any](p *parser, n *yaml.Node, path string, fields map[string]*field, name string, read func(*yaml.Node, string) (T, bool)) (T, bool) {
	f := fields[name]
	if f == nil {
		if n.Kind == yaml.MappingNode { // else fields reported the node
			p.fail(n, path, "missing %s", name)
		}
		var zero T
		return zero, false
	}
	return read(f.val, f.name)
}

func (p *parser) weighted(n *yaml.Node, path string) Distribution {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.fail(n, path, "want sizes and their weights, like %s, got %s", examples["weighted"], describe(n))
		return nil
	}
	var ws []Weight
	first := map[int]*yaml.Node{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		at := join(path, k.Value)
		size, okSize := p.size(k, at)
		w, okW := p.number(v, at)
		if okW && w < 0 {
			p.fail(v, at, "weight %s is negative", v.Value)
			okW = false
		}
		if okSize {
			if prev, dup := first[size]; dup {
				p.fail(k, at, "size %s listed twice (also at line %d)", units.ExactBytes(int64(size)), prev.Line)
				okSize = false
			} else {
				first[size] = k
			}
		}
		ok = ok && okSize && okW
		ws = append(ws, Weight{Size: size, Weight: w})
	}
	if !ok {
		return nil
	}
	g, err := NewWeighted(ws)
	if err != nil {
		p.fail(n, path, "%s", strings.TrimPrefix(err.Error(), "sizegen: "))
		return nil
	}
	return g
}

func (p *parser) histogram(n *yaml.Node, path string) Distribution {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || n.Value == "" {
		p.fail(n, path, "want a file name, like %s, got %s", examples["histogram"], describe(n))
		return nil
	}
	if p.fsys == nil {
		p.fail(n, path, "histogram files cannot be read here")
		return nil
	}
	f, err := p.fsys.Open(n.Value)
	if err != nil {
		p.fail(n, path, "%v", err)
		return nil
	}
	defer f.Close()
	g, err := ReadHistogram(f)
	if err == nil {
		return g
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if he, ok := e.(*Error); ok && he.Line > 0 {
			p.fail(n, path, "%s:%d: %s", n.Value, he.Line, he.Msg)
		} else {
			p.fail(n, path, "%s: %v", n.Value, e)
		}
	}
	return nil
}

// size reads a byte count of at least 1: an integer or a string with a
// unit.
func (p *parser) size(n *yaml.Node, path string) (int, bool) {
	var s int64
	var err error
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int":
		err = n.Decode(&s)
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		s, err = units.ParseBytes(n.Value)
	default:
		p.fail(n, path, "want a size like 4096, \"64B\" or \"4KiB\", got %s", describe(n))
		return 0, false
	}
	switch {
	case err != nil:
		p.fail(n, path, "%v", err)
	case s < 1:
		p.fail(n, path, "size %s is below 1B", n.Value)
	case s > math.MaxInt:
		p.fail(n, path, "size %s out of range", n.Value)
	default:
		return int(s), true
	}
	return 0, false
}

// number reads a finite number.
func (p *parser) number(n *yaml.Node, path string) (float64, bool) {
	var f float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&f) != nil {
		p.fail(n, path, "want a number, got %s", describe(n))
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		p.fail(n, path, "want a finite number, got %s", n.Value)
		return 0, false
	}
	return f, true
}

// describe names a node for messages.
func describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.ShortTag() == "!!null":
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

// join extends a field path by key, quoted unless it is a plain word.
func join(path, key string) string {
	if key == "" {
		return path
	}
	if strings.IndexFunc(key, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}
