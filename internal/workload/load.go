package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// LoadFile reads, decodes, defaults and validates the workload file at path.
// (It is not named Load because the schema's load-model type is.) The
// error joins every problem found, each as a *FieldError
// "path:line:col: field: message".
func LoadFile(path string) (*Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse is LoadFile on data already read; name is used in messages and, when
// the file has no name field, as the workload's name (without extension).
// On error the returned Workload is nil.
func Parse(name string, data []byte) (*Workload, error) {
	w := &Workload{src: newSource(name)}
	root, err := parseYAML(name, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{src: w.src}
	if root.Kind == yaml.MappingNode && len(root.Content) > 0 {
		w.src.root = loc{line: root.Content[0].Line, col: root.Content[0].Column}
	}
	d.decode(root, reflect.ValueOf(w).Elem(), "")
	w.applyDefaults()
	errs := append(d.errs, w.problems()...)
	if len(errs) > 0 {
		return nil, join(errs)
	}
	return w, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML returns the single document's root node.
func parseYAML(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &FieldError{File: name, Line: 1, Col: 1, Msg: "empty workload file"}
		}
		return nil, syntaxError(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &FieldError{File: name, Line: extra.Line, Col: extra.Column, Msg: "more than one YAML document; a workload file holds one"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(name, err)
	}
	if len(doc.Content) == 0 {
		return nil, &FieldError{File: name, Line: 1, Col: 1, Msg: "empty workload file"}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, &FieldError{File: name, Line: 1, Col: 1, Msg: "empty workload file"}
	}
	return root, nil
}

func syntaxError(name string, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FieldError{File: name, Line: line, Col: 1, Msg: "YAML syntax: " + m[2]}
	}
	return &FieldError{File: name, Msg: fmt.Sprintf("YAML syntax: %v", err)}
}
