package rdmakv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// cOperations are the operations of the original C design that
// docs/PROTOCOL.md must map onto the code.
var cOperations = []string{
	"create_map_item", "set_map_item", "set_write_address", "get_map_item_by_key",
	"server_handle_set", "server_handle_large_set", "server_update_read_addr", "server_handle_get",
	"server_handle_large_get", "server_handle_eager_get", "handle_server",
	"kv_open", "kv_set", "kv_get", "kv_release", "kv_close",
}

// protocolDoc is the text of docs/PROTOCOL.md.
func protocolDoc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

var docRef = regexp.MustCompile("`((?:rdmakv|cmd)/[\\w/]+\\.go):([\\w.]+)`")

// TestProtocolDocMapping keeps the C-design table in docs/PROTOCOL.md true:
// every C operation has a row, and every file:function it names exists, so
// a rename that forgets the document fails here.
func TestProtocolDocMapping(t *testing.T) {
	text := protocolDoc(t)
	start := strings.Index(text, "## Mapping from the original C design")
	if start < 0 {
		t.Fatal("docs/PROTOCOL.md has no mapping section")
	}
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = cells[2]
	}
	funcs := map[string]map[string]bool{} // file -> declared names
	for _, op := range cOperations {
		cell, ok := rows[op]
		if !ok {
			t.Errorf("no row for %s", op)
			continue
		}
		refs := docRef.FindAllStringSubmatch(cell, -1)
		if len(refs) == 0 {
			t.Errorf("%s: no file:function reference in %q", op, cell)
		}
		for _, r := range refs {
			file, name := r[1], r[2]
			decl, ok := funcs[file]
			if !ok {
				decl = declaredFuncs(t, filepath.Join("..", file))
				funcs[file] = decl
			}
			if !decl[name] {
				t.Errorf("%s: %s declares no %s", op, file, name)
			}
		}
	}
}

// declaredFuncs lists a file's functions as Name and methods as Type.Name.
func declaredFuncs(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			typ := fd.Recv.List[0].Type
			if st, ok := typ.(*ast.StarExpr); ok {
				typ = st.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		out[name] = true
	}
	return out
}

var docCodeRow = regexp.MustCompile("^\\|\\s*(\\d+)\\s*\\|\\s*`([A-Z_]+)`")

// TestProtocolDocCodes checks the type and status tables of
// docs/PROTOCOL.md against the wire package, both ways.
func TestProtocolDocCodes(t *testing.T) {
	text := protocolDoc(t)
	table := func(heading string) map[int]string {
		i := strings.Index(text, heading)
		if i < 0 {
			t.Fatalf("docs/PROTOCOL.md has no %q section", heading)
		}
		rest := text[i+len(heading):]
		if j := strings.Index(rest, "\n#"); j >= 0 {
			rest = rest[:j]
		}
		out := map[int]string{}
		for _, line := range strings.Split(rest, "\n") {
			if m := docCodeRow.FindStringSubmatch(line); m != nil {
				n, _ := strconv.Atoi(m[1])
				out[n] = m[2]
			}
		}
		return out
	}
	types := table("## Message types")
	n := 0
	for ty := wire.Type(1); ty.Valid(); ty++ {
		n++
		if types[int(ty)] != ty.String() {
			t.Errorf("type %d is %s in the code, %q in the document", ty, ty, types[int(ty)])
		}
	}
	for code, size := range docHeaderLens(t, text) {
		if ty := wire.Type(code); wire.HeaderLen(ty) != size {
			t.Errorf("%s: the document says a %d-byte header, the code %d", ty, size, wire.HeaderLen(ty))
		}
	}
	if len(types) != n {
		t.Errorf("document lists %d message types, the code has %d", len(types), n)
	}
	statuses := table("### Status codes")
	n = 0
	for st := wire.Status(0); st.Valid(); st++ {
		n++
		if statuses[int(st)] != st.String() {
			t.Errorf("status %d is %s in the code, %q in the document", st, st, statuses[int(st)])
		}
	}
	if len(statuses) != n {
		t.Errorf("document lists %d statuses, the code has %d", len(statuses), n)
	}
}

// docHeaderLens reads the header column of the message type table.
func docHeaderLens(t *testing.T, text string) map[int]int {
	i := strings.Index(text, "## Message types")
	if i < 0 {
		t.Fatal("docs/PROTOCOL.md has no message type table")
	}
	out := map[int]int{}
	col := -1
	for _, line := range strings.Split(text[i:], "\n")[1:] {
		if strings.HasPrefix(line, "#") {
			break
		}
		cells := strings.Split(line, "|")
		for j, c := range cells {
			if strings.TrimSpace(c) == "header" {
				col = j
			}
		}
		if m := docCodeRow.FindStringSubmatch(line); m != nil && col > 0 && col < len(cells) {
			code, _ := strconv.Atoi(m[1])
			size, err := strconv.Atoi(strings.TrimSpace(cells[col]))
			if err != nil {
				t.Errorf("type %d: header column %q is not a number", code, cells[col])
				continue
			}
			out[code] = size
		}
	}
	if col < 0 || len(out) == 0 {
		t.Error("the message type table has no header column")
	}
	return out
}

// The eager rule: key plus value below the threshold goes eager, and
// EagerThresholdFor is the least threshold that sends a request eager.
func TestProtocolAt(t *testing.T) {
	for _, c := range []struct{ th, k, v int }{{4096, 16, 4079}, {4096, 16, 4080}, {0, 0, 0}, {1, 0, 0}, {100, 10, 89}} {
		want := Rendezvous
		if c.k+c.v < c.th {
			want = Eager
		}
		if got := ProtocolAt(c.th, c.k, c.v); got != want {
			t.Errorf("ProtocolAt(%d, %d, %d) = %v, want %v", c.th, c.k, c.v, got, want)
		}
		if e := EagerThresholdFor(c.k, c.v); ProtocolAt(e, c.k, c.v) != Eager || ProtocolAt(e-1, c.k, c.v) != Rendezvous {
			t.Errorf("EagerThresholdFor(%d, %d) = %d is not the least threshold for eager", c.k, c.v, e)
		}
		if l := LargestEagerValue(c.th, c.k); (c.v <= l) != (want == Eager) || l >= 0 && ProtocolAt(c.th, c.k, l) != Eager || ProtocolAt(c.th, c.k, l+1) != Rendezvous {
			t.Errorf("LargestEagerValue(%d, %d) = %d is not the largest value sent eager", c.th, c.k, l)
		}
	}
}
