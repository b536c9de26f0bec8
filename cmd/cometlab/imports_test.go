package main

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is the package graph of docs/architecture.md ("Dependency
// direction"): for each package under internal/, the internal packages its
// non-test files may import. The run analysis chain points one way,
// results ← analysis ← {saturation, compare} ← report ← experiment (one
// run) ← series (series of runs: sweep, saturate, ab) ← qa (the method) ←
// cmd; qa/plan, the method's pure plan, imports neither experiment nor
// series. stats (the statistics) is a leaf: it imports nothing internal;
// sequential (ab's stepping rule) is rendered by report and applied by
// series;
// changepoint (change points of a series of runs) takes only stats; web
// (cometlab serve's pages) reads the history index and renders with
// report's formats and compare's engine, and nothing imports it. A new
// edge is a design decision, made here; TestImportsDoc draws the graph in
// docs/architecture.md from this map (go test -update rewrites it).
var allowedImports = map[string][]string{
	"results":                   {},
	"results/resultstest":       {"results"},
	"rpc":                       {},
	"sentinel":                  {"results", "rpc"},
	"payload":                   {},
	"shape":                     {},
	"cometbft":                  {"exitcode"},
	"exitcode":                  {},
	"manifest":                  {"cometbft", "links", "payload", "rpc", "shape"},
	"testnet":                   {"cometbft", "results", "rpc"},
	"testnet/testnettest":       {"testnet"},
	"testnet/nshoststest":       {"testnet/testnettest"},
	"links":                     {},
	"deploy":                    {},
	"load":                      {"payload", "results", "shape"},
	"collect":                   {"payload", "results", "rpc"},
	"stats":                     {},
	"changepoint":               {"stats"},
	"analysis":                  {"payload", "results", "stats"},
	"saturation":                {"analysis", "results", "stats"},
	"sequential":                {"stats"},
	"history":                   {"analysis", "changepoint", "results", "saturation", "stats"},
	"compare":                   {"analysis", "cometbft", "exitcode", "results", "sequential", "stats"},
	"report":                    {"analysis", "compare", "results", "saturation", "sequential", "stats"},
	"web":                       {"analysis", "compare", "history", "report", "results", "saturation"},
	"experiment":                {"analysis", "collect", "cometbft", "deploy", "exitcode", "links", "load", "manifest", "report", "results", "rpc", "sentinel", "shape", "testnet"},
	"experiment/experimenttest": {"cometbft", "experiment", "manifest", "testnet/testnettest"},
	"series":                    {"analysis", "compare", "exitcode", "experiment", "manifest", "report", "results", "saturation", "sequential"},
	"qa/plan":                   {"cometbft", "exitcode", "manifest", "results", "saturation", "stats"},
	"qa":                        {"analysis", "cometbft", "compare", "exitcode", "experiment", "manifest", "qa/plan", "report", "results", "saturation", "series"},
}

// TestImportDirection checks every package's imports against
// allowedImports, and that no production package imports "testing".
func TestImportDirection(t *testing.T) {
	imports := packageImports(t)
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		allowed, ok := allowedImports[pkg]
		if !ok {
			t.Errorf("package %s is not in allowedImports", pkg)
			continue
		}
		for _, imp := range slices.Sorted(maps.Keys(imports[pkg])) {
			path := imports[pkg][imp]
			switch {
			case imp == "testing" && !strings.HasSuffix(pkg, "test"):
				t.Errorf("%s: a production package imports testing", path)
			case strings.HasPrefix(imp, internalPrefix) && !slices.Contains(allowed, strings.TrimPrefix(imp, internalPrefix)):
				t.Errorf("%s imports %s: not an allowed edge of the package graph", path, strings.TrimPrefix(imp, internalPrefix))
			}
		}
	}
	if len(imports) < 10 {
		t.Fatalf("found only %d packages under internal/", len(imports))
	}
}

// internalPrefix is the import path of the packages under internal/.
const internalPrefix = "github.com/cometlab/cometlab/internal/"

// packageImports parses the non-test files of every package under
// internal/ and returns, per package (its path under internal/), every
// path its files import with the first file that imports it.
func packageImports(t *testing.T) map[string]map[string]string {
	t.Helper()
	root := filepath.Join("..", "..", "internal")
	imports := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, root+string(filepath.Separator))))
		if imports[pkg] == nil {
			imports[pkg] = map[string]string{}
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if _, ok := imports[pkg][imp]; !ok {
				imports[pkg][imp] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}
