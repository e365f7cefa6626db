// Package layers_test holds the module's packages to the layering
// docs/DESIGN.md draws: the library imports no harness, and the readers
// of results (report, plot, compare, and tune, whose Result report and
// plot read) import nothing that runs a benchmark, so that rendering a
// results directory needs no store, workload or load generator; nor does
// the trace reader.
package layers_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kvbench/kvbench"

// harness are the packages that generate load or read workloads, which a
// reader of results must not reach.
var harness = []string{"internal/bench", "internal/store", "internal/workload", "internal/keygen", "internal/sizegen", "internal/valuegen", "internal/hwcounters"}

// readers are the packages that read results and tune's Result.
var readers = []string{"internal/report", "internal/plot", "internal/compare", "internal/tune"}

func TestReadersImportNoHarness(t *testing.T) {
	for _, r := range readers {
		via := moduleDeps(t, r)
		for _, h := range harness {
			if _, ok := via[h]; ok {
				t.Errorf("%s depends on %s: %s", r, h, chain(via, h))
			}
		}
	}
}

// The trace reader reads files alone, so that the engine can replay
// traces through it without a cycle.
func TestTraceImportsNoHarness(t *testing.T) {
	via := moduleDeps(t, "internal/trace")
	for _, h := range harness {
		if _, ok := via[h]; ok {
			t.Errorf("internal/trace depends on %s: %s", h, chain(via, h))
		}
	}
}

// tune decides from measurements alone: beyond the library it reaches
// only the results format, its statistics, units and figures.
func TestTuneDependsOnResultsOnly(t *testing.T) {
	allowed := []string{"internal/results", "internal/stats", "internal/units", "internal/figure"}
	via := moduleDeps(t, "internal/tune")
	for dep := range via {
		if !slices.Contains(allowed, dep) && !within(dep, "rdmakv") {
			t.Errorf("internal/tune depends on %s: %s", dep, chain(via, dep))
		}
	}
}

func TestLibraryImportsNoHarness(t *testing.T) {
	via := moduleDeps(t, "rdmakv")
	for dep := range via {
		if within(dep, "internal") {
			t.Errorf("rdmakv depends on %s: %s", dep, chain(via, dep))
		}
	}
}

// moduleDeps are the module's packages pkg imports, directly or not, in
// its non-test files for this platform (as go list -deps sees them), each
// mapped to a package that imports it. Paths are relative to the module;
// the library's subpackages count as the library's.
func moduleDeps(t *testing.T, pkg string) map[string]string {
	t.Helper()
	via := map[string]string{}
	queue := []string{pkg}
	if pkg == "rdmakv" {
		queue = libraryPackages(t)
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		bp, err := build.ImportDir(filepath.Join("..", filepath.FromSlash(p)), 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, imp := range bp.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if _, seen := via[rel]; ok && !seen && rel != pkg {
				via[rel] = p
				queue = append(queue, rel)
			}
		}
	}
	return via
}

// libraryPackages are rdmakv and every package under it that builds
// here, its commands and tests' helpers included.
func libraryPackages(t *testing.T) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir("../rdmakv", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() == "testdata" {
			return err
		}
		if _, err := build.ImportDir(dir, 0); err == nil {
			pkgs = append(pkgs, filepath.ToSlash(strings.TrimPrefix(dir, "../")))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// within reports whether path is dir or below it.
func within(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// chain is how dep is reached: the importers back to the package asked
// about, for the failure to say which import to cut.
func chain(via map[string]string, dep string) string {
	path := []string{dep}
	for p, ok := via[dep]; ok; p, ok = via[p] {
		path = append(path, p)
	}
	slices.Reverse(path)
	return strings.Join(path, " -> ")
}
