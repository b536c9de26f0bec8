package results_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// fileName is what a constant naming a file of a directory looks like.
var fileName = regexp.MustCompile(`^[a-z_/]+\.(csv|json|toml|md|html|png)$`)

// namesInDoc is what a file name the contract blocks hold looks like.
var namesInDoc = regexp.MustCompile(`[a-z_]+\.(csv|json|toml|md|html)\b`)

// outsideResults are the file names the run directory's contract holds
// that another package names: the load from load hosts (experiment).
var outsideResults = []string{"load.toml", "load.json"}

// notRunFiles are the names results defines for the directories of
// sweeps, searches and comparisons, not for a run directory.
var notRunFiles = []string{results.SweepFile, results.SweepReportFile, results.SweepHTMLFile, results.SaturateFile,
	results.SaturateReportFile, results.SaturateHTMLFile, results.CellsDir, results.StepsDir, results.ManifestsDir,
	results.LatencyThroughputPlot, results.CompareMD, results.CompareHTML, results.CompareJSON,
	results.QAFile, results.QAReportFile, results.QAHTMLFile, results.QATestsDir, results.QASearchDir, results.QAGridDir}

// TestDirectoryContract checks the directory contracts of
// docs/architecture.md against the names results defines (every string
// constant of this package that names a file, or a …Dir): each name of a
// run directory is in "The run directory" block, with the header of its
// CSV (the …Header constant of the same stem) as the line's columns, and
// in docs/directories.md; each other is in the block of sweep, search and
// comparison directories; and every file name the run directory's block
// holds is one of results' (or of outsideResults).
func TestDirectoryContract(t *testing.T) {
	consts := stringConsts(t)
	arch := readDoc(t, "architecture.md")
	runBlock, otherBlock := codeBlockAfter(t, arch, "### The run directory"), codeBlockAfter(t, arch, "### Sweep, search, compare")
	dirs := readDoc(t, "directories.md")
	columns := blockColumns(runBlock)
	runNames := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(consts)) {
		value := consts[name]
		isDir := strings.HasSuffix(name, "Dir")
		if !isDir && !fileName.MatchString(value) {
			continue
		}
		shown := value
		if isDir {
			shown += "/"
		}
		if slices.Contains(notRunFiles, value) {
			if !strings.Contains(otherBlock, shown) {
				t.Errorf("architecture.md's sweep, search and compare block lacks %s (results.%s)", shown, name)
			}
			continue
		}
		runNames[value] = true
		if !strings.Contains(runBlock, shown) {
			t.Errorf("architecture.md's run-directory block lacks %s (results.%s)", shown, name)
		}
		if !strings.Contains(dirs, "`"+shown) {
			t.Errorf("directories.md lacks %s (results.%s)", shown, name)
		}
		stem := strings.TrimSuffix(name, "File")
		header, ok := consts[stem+"Header"]
		if !ok {
			header, ok = consts[stem+"sHeader"]
		}
		if ok && columns[value] != header {
			t.Errorf("architecture.md's run-directory block gives %s the columns %q; results.%sHeader is %q", value, columns[value], stem, header)
		}
	}
	for _, name := range namesInDoc.FindAllString(runBlock, -1) {
		if !runNames[name] && !slices.Contains(outsideResults, name) {
			t.Errorf("architecture.md's run-directory block names %s, which results does not define for a run directory", name)
		}
	}
	if len(runNames) < 20 {
		t.Errorf("found only %d names of a run directory among results' constants", len(runNames))
	}
}

// stringConsts returns the string constants of this package's non-test
// files, by name.
func stringConsts(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[vs.Names[i].Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	return consts
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codeBlockAfter returns the first fenced code block after the line that
// starts with heading.
func codeBlockAfter(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading)
	if i < 0 {
		t.Fatalf("no heading %q", heading)
	}
	rest := doc[i:]
	j := strings.Index(rest, "\n```\n")
	if j < 0 {
		t.Fatalf("no code block after %q", heading)
	}
	rest = rest[j+len("\n```\n"):]
	k := strings.Index(rest, "\n```")
	if k < 0 {
		t.Fatalf("the code block after %q does not end", heading)
	}
	return rest[:k+1]
}

// blockColumns maps each CSV file that starts a line of the run directory's
// block ("  NAME  COLUMNS  what") to its columns: the next word, when it
// holds a comma.
func blockColumns(block string) map[string]string {
	cols := map[string]string{}
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "   ") {
			continue
		}
		if f := strings.Fields(line); len(f) > 1 && strings.HasSuffix(f[0], ".csv") && strings.Contains(f[1], ",") {
			cols[f[0]] = f[1]
		}
	}
	return cols
}
