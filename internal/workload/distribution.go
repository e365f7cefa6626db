package workload

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/kvbench/kvbench/internal/sizegen"
	"gopkg.in/yaml.v3"
)

// Distribution is values.distribution: the law each value's size is drawn
// from, as sizegen.Parse reads it. A workload with a distribution has one
// cell per threshold (Cells), whose operations each draw their value's
// size (bench.ValueSize says how).
type Distribution struct {
	// Spec is the distribution as the file gives it, on one line:
	// "etc, max: 1MiB", "weighted: {64B: 70, 4KiB: 20, 256KiB: 10}". It
	// names the cells in results (results.Cell.Distribution) and is what
	// results.json records of it.
	Spec string
	law  sizegen.Distribution
	// tail names a law with no largest size of its own and no max
	// clamping it (unbounded), which validation refuses.
	tail string
}

// NewDistribution reads a distribution for a Workload built in code: on
// one line as Spec writes it ("etc, max: 1MiB", "uniform: {min: 1KiB,
// max: 64KiB}"), or as a YAML document of several lines, as a workload
// file gives it under values.distribution. Histogram files are read
// relative to the working directory.
func NewDistribution(spec string) (*Distribution, error) {
	if !strings.Contains(strings.TrimSpace(spec), "\n") {
		spec = "{" + spec + "}" // Spec leaves out a mapping's braces
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(spec), &n); err != nil {
		return nil, err
	}
	law, err := sizegen.Parse(&n, dirFS("."))
	if err != nil {
		return nil, err
	}
	return &Distribution{Spec: specText(&n), law: law, tail: unbounded(&n)}, nil
}

// Law is the distribution itself; nil for a Distribution that was not
// parsed (one decoded from results.json).
func (d *Distribution) Law() sizegen.Distribution { return d.law }

// MeanSize is the law's mean rounded to a byte (at least 1): the value
// size results give the distribution's cells (results.Cell.ValueSize), so
// that a figure by value size places them at their mean and throughput
// in bytes stays what it was.
func (d *Distribution) MeanSize() int64 {
	return max(1, int64(math.Round(d.law.Mean())))
}

// MarshalJSON writes the Spec: results.json records the distribution as
// the file gave it.
func (d *Distribution) MarshalJSON() ([]byte, error) { return json.Marshal(d.Spec) }

// UnmarshalJSON reads the Spec back; the law is not parsed again.
func (d *Distribution) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &d.Spec) }

var distributionType = reflect.TypeFor[*Distribution]()

// distribution decodes values.distribution with sizegen.Parse, its
// problems positioned as the decoder's are. A histogram file is read
// relative to the workload file's directory.
func (d *decoder) distribution(n *yaml.Node, v reflect.Value, path string) {
	if dist := d.law(n, path, sizegen.Parse); dist != nil {
		v.Set(reflect.ValueOf(dist))
	}
}

// law decodes the size distribution at path with parse, reporting its
// problems; nil if it has any.
func (d *decoder) law(n *yaml.Node, path string, parse func(*yaml.Node, fs.FS) (sizegen.Distribution, error)) *Distribution {
	law, err := parse(n, dirFS(filepath.Dir(d.src.file)))
	if err != nil {
		var errs []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		} else {
			errs = []error{err}
		}
		for _, e := range errs {
			var se *sizegen.Error
			if !errors.As(e, &se) {
				d.fail(n, path, "%v", e)
				continue
			}
			at := n
			if se.Line > 0 {
				at = &yaml.Node{Line: se.Line, Column: se.Col}
			}
			p := path
			if se.Path != "" {
				p += "." + se.Path
			}
			d.src.bad[path] = true
			d.errs = append(d.errs, &FieldError{File: d.src.file, Line: at.Line, Col: at.Column, Path: p, Msg: se.Msg})
		}
		return nil
	}
	if m := specField(n, "max"); m != nil {
		d.src.locs[path+".max"] = loc{line: m.Line, col: m.Column}
	}
	return &Distribution{Spec: specText(n), law: law, tail: unbounded(n)}
}

// dirFS opens files relative to a directory, and absolute ones and ones
// reaching out of it with ".." as they are, as a workload names its
// histogram files (os.DirFS would refuse the last two).
type dirFS string

func (dir dirFS) Open(name string) (fs.File, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(string(dir), name)
	}
	return os.Open(name)
}

// specField is the value of the field name of a distribution given as a
// mapping, following aliases; nil if there is none.
func specField(n *yaml.Node, name string) *yaml.Node {
	n = resolveNode(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolveNode(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == name {
			return resolveNode(n.Content[i+1])
		}
	}
	return nil
}

func resolveNode(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// unbounded names the law of a distribution that has no largest size of
// its own (etc, and gpd with a shape of 0 or more, whose tails only the
// resolution of a float64 ends) and no max clamping it; "" otherwise.
func unbounded(n *yaml.Node) string {
	n = resolveNode(n)
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = resolveNode(n.Content[0])
	}
	if n == nil {
		return ""
	}
	if n.Kind == yaml.ScalarNode {
		if n.Value == "etc" {
			return "etc"
		}
		return ""
	}
	if specField(n, "max") != nil {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch resolveNode(n.Content[i]).Value {
		case "etc":
			return "etc"
		case "gpd":
			s := specField(n.Content[i+1], "shape")
			if s == nil {
				continue
			}
			if shape, err := strconv.ParseFloat(s.Value, 64); err == nil && shape >= 0 {
				return "gpd with shape " + s.Value
			}
		}
	}
	return ""
}

// specText writes a distribution's node on one line, in YAML's flow
// style without the outer braces: "weighted: {64B: 70, 4KiB: 30}, max:
// 1MiB", "etc, max: 1MiB". Aliases are written out, null values left
// out.
func specText(n *yaml.Node) string {
	n = resolveNode(n)
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = resolveNode(n.Content[0])
	}
	if n == nil {
		return ""
	}
	var b strings.Builder
	if n.Kind == yaml.MappingNode {
		flowEntries(&b, n)
	} else {
		flow(&b, n)
	}
	return b.String()
}

func flow(b *strings.Builder, n *yaml.Node) {
	n = resolveNode(n)
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteString("{")
		flowEntries(b, n)
		b.WriteString("}")
	case yaml.SequenceNode:
		b.WriteString("[")
		for i, e := range n.Content {
			if i > 0 {
				b.WriteString(", ")
			}
			flow(b, e)
		}
		b.WriteString("]")
	default:
		b.WriteString(flowScalar(n))
	}
}

func flowEntries(b *strings.Builder, n *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		flow(b, n.Content[i])
		if v := resolveNode(n.Content[i+1]); v.Kind != yaml.ScalarNode || v.ShortTag() != "!!null" {
			b.WriteString(": ")
			flow(b, v)
		}
	}
}

// flowScalar is a scalar as written, quoted where it was or where it
// would not read back as the same scalar in flow style.
func flowScalar(n *yaml.Node) string {
	v := n.Value
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	if quoted || v == "" || strings.ContainsAny(v, ",:{}[]#&*!|>'\"%@`\n") || strings.TrimSpace(v) != v {
		return strconv.Quote(v)
	}
	return v
}
