package workload

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// loc is where a field came from: a position in the file, or a flag.
type loc struct {
	line, col int
	flag      string
}

// source remembers, per dotted field path, where each field was set, so
// that defaults fill only what is absent and every later problem can be
// reported at the right line.
type source struct {
	file string
	root loc
	locs map[string]loc
	bad  map[string]bool // paths that failed to decode: not re-reported by Validate
}

func newSource(file string) *source {
	return &source{file: file, root: loc{line: 1, col: 1}, locs: map[string]loc{}, bad: map[string]bool{}}
}

// has reports whether path (or anything under it) was set in the file or
// by a flag.
func (s *source) has(path string) bool {
	if s == nil {
		return false
	}
	_, ok := s.locs[path]
	return ok
}

// at is the location of path, else of its nearest set ancestor, else of
// the document.
func (s *source) at(path string) loc {
	for p := path; p != ""; p = parent(p) {
		if l, ok := s.locs[p]; ok {
			return l
		}
	}
	return s.root
}

// related reports whether the decoder failed on path, on a field holding
// it, or on a field inside it.
func (s *source) related(path string) bool {
	if len(s.bad) == 0 {
		return false
	}
	for p := path; ; p = parent(p) {
		if s.bad[p] {
			return true
		}
		if p == "" {
			break
		}
	}
	for b := range s.bad {
		if strings.HasPrefix(b, path) && (len(b) == len(path) || b[len(path)] == '.' || b[len(path)] == '[') {
			return true
		}
	}
	return false
}

func parent(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// decoder walks a yaml.Node tree into the schema types by their yaml tags,
// recording locations and collecting every problem rather than stopping at
// the first.
type decoder struct {
	src  *source
	errs []*FieldError
}

func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.src.bad[path] = true
	d.errs = append(d.errs, &FieldError{File: d.src.file, Line: n.Line, Col: n.Column, Path: path, Msg: fmt.Sprintf(format, args...)})
}

var (
	sizeType     = reflect.TypeFor[Size]()
	thType       = reflect.TypeFor[Threshold]()
	durationType = reflect.TypeFor[Duration]()
)

// describe names a node's type for messages: "a string "abc"".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing (null)"
	case "!!int":
		return "an integer " + n.Value
	case "!!float":
		return "a number " + n.Value
	case "!!bool":
		return "a boolean " + n.Value
	}
	return fmt.Sprintf("a string %q", n.Value)
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if v.Type() == distributionType {
		d.distribution(n, v, path)
		return
	}
	if v.Kind() == reflect.Pointer {
		if n.ShortTag() == "!!null" {
			v.SetZero()
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), path)
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		d.fail(n, path, "empty value; give a value or remove the field to use the default")
		return
	}
	switch v.Type() {
	case sizeType:
		d.size(n, v, path)
		return
	case thType:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == AdaptiveName {
			v.SetInt(int64(AdaptiveThreshold))
			return
		}
		if d.size(n, v, path); v.Int() < 0 {
			d.fail(n, path, "must be from 0 to %v, or %s, got %d", Size(MaxValueSize), AdaptiveName, v.Int())
		}
		return
	case durationType:
		d.duration(n, v, path)
		return
	case speedType:
		d.speed(n, v, path)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.mapping(n, v, path)
	case reflect.Slice:
		d.sequence(n, v, path)
	case reflect.String:
		// A range step may be written as a plain byte count.
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!str" || (strings.HasSuffix(path, "range.step") && n.ShortTag() == "!!int")) {
			v.SetString(n.Value)
			return
		}
		d.fail(n, path, "want a string, got %s", describe(n))
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			d.fail(n, path, "want true or false, got %s", describe(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		var i int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
			d.fail(n, path, "want an integer, got %s", describe(n))
			return
		}
		if v.OverflowInt(i) {
			d.fail(n, path, "integer %s out of range", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Uint64:
		var u uint64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&u) != nil {
			d.fail(n, path, "want an integer from 0 to 18446744073709551615, got %s", describe(n))
			return
		}
		v.SetUint(u)
	case reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!float" && n.ShortTag() != "!!int") || n.Decode(&f) != nil {
			d.fail(n, path, "want a number, got %s", describe(n))
			return
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.fail(n, path, "want a finite number, got %s", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		// Only reachable if the schema gains a type this decoder lacks.
		d.fail(n, path, "internal error: unsupported field type %s", v.Type())
	}
}

func (d *decoder) size(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				v.SetInt(i)
				return
			}
		case "!!str":
			s, err := ParseSize(n.Value)
			if err != nil {
				d.fail(n, path, "%v", err)
				return
			}
			v.SetInt(int64(s))
			return
		}
	}
	d.fail(n, path, "want a size like 4096, \"64B\", \"4KiB\" or \"1MiB\", got %s", describe(n))
}

func (d *decoder) duration(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		t, err := time.ParseDuration(n.Value)
		if err != nil {
			d.fail(n, path, "invalid duration %q: want a number with a unit, like \"500ms\", \"10s\" or \"2m\"", n.Value)
			return
		}
		v.SetInt(int64(t))
		return
	}
	d.fail(n, path, "want a duration like \"500ms\", \"10s\" or \"2m\", got %s", describe(n))
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "want a mapping of fields, got %s", describe(n))
		return
	}
	t := v.Type()
	fields := map[string]int{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !t.Field(i).IsExported() {
			continue
		}
		fields[name] = i
		names = append(names, name)
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := k.Value
		p := join2(path, key)
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.fail(k, path, "field names must be plain words, got %s", describe(k))
			continue
		}
		if prev, dup := seen[key]; dup {
			d.fail(k, p, "duplicate field (first set at line %d)", prev.Line)
			continue
		}
		seen[key] = k
		fi, ok := fields[key]
		if !ok {
			d.fail(k, p, "unknown field %q (want one of: %s)", key, strings.Join(names, ", "))
			continue
		}
		d.src.locs[p] = loc{line: k.Line, col: k.Column}
		if fd, ok := v.Addr().Interface().(fieldDecoder); ok && fd.decodeField(d, key, val, p) {
			continue
		}
		d.decode(val, v.Field(fi), p)
	}
}

// fieldDecoder is a schema type that decodes some of its fields itself,
// where a field takes more forms than its Go type's.
type fieldDecoder interface {
	// decodeField decodes the field name from n, at path, and reports
	// whether it did; if not, the decoder decodes it by its type.
	decodeField(d *decoder, name string, n *yaml.Node, path string) bool
}

func (d *decoder) sequence(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "want a list, got %s", describe(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, e := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		d.src.locs[p] = loc{line: e.Line, col: e.Column}
		d.decode(e, s.Index(i), p)
	}
	v.Set(s)
}

// join2 extends a field path by key. A key that is not a plain word (an
// unknown field may be anything, line breaks included) is quoted, so an
// error message stays on its one line.
func join2(path, key string) string {
	if strings.IndexFunc(key, notWordRune) >= 0 {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func notWordRune(r rune) bool {
	return !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
}
