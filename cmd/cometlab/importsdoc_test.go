package main

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

const (
	importsBegin = "<!-- imports:begin — generated from allowedImports in cmd/cometlab/imports_test.go by TestImportsDoc (go test ./cmd/cometlab -run TestImportsDoc -update); do not edit -->\n"
	importsEnd   = "<!-- imports:end -->\n"
)

// architectureDoc is the page whose package graph TestImportsDoc keeps.
var architectureDoc = filepath.Join("..", "..", "docs", "architecture.md")

// TestImportsDoc keeps the package graph of docs/architecture.md
// ("Dependency direction") identical to allowedImports, and its list of
// allowed edges no file uses identical to the imports of the code;
// -update rewrites it.
func TestImportsDoc(t *testing.T) {
	resultstest.Section(t, architectureDoc, importsBegin, importsEnd, importsMarkdown(allowedImports, packageImports(t)))
}

// importsLine is the width the graph's lines wrap at.
const importsLine = 100

// importsMarkdown draws the package graph allowed: the packages that may
// import nothing internal on one line, then one line per other package,
// "pkg → what it may import", ordered by depth (a package after
// everything it may import) and name. Below it, the allowed edges that no
// file of imports (per package, the paths its files import) uses, and the
// packages no other may import.
func importsMarkdown(allowed map[string][]string, imports map[string]map[string]string) string {
	depth := map[string]int{}
	var depthOf func(pkg string) int
	depthOf = func(pkg string) int {
		if d, ok := depth[pkg]; ok {
			return d
		}
		d := 0
		for _, imp := range allowed[pkg] {
			d = max(d, depthOf(imp)+1)
		}
		depth[pkg] = d
		return d
	}
	pkgs := slices.Collect(maps.Keys(allowed))
	slices.SortFunc(pkgs, func(a, b string) int { return cmp.Or(cmp.Compare(depthOf(a), depthOf(b)), cmp.Compare(a, b)) })
	var leaves, rest []string
	imported := map[string]bool{}
	width := 0
	for _, p := range pkgs {
		if len(allowed[p]) == 0 {
			leaves = append(leaves, p)
			continue
		}
		rest = append(rest, p)
		width = max(width, len(p))
		for _, imp := range allowed[p] {
			imported[imp] = true
		}
	}
	var b strings.Builder
	b.WriteString("```\n")
	b.WriteString(wrapWords(strings.Join(leaves, " ")+"   (no internal imports)", "", importsLine))
	for _, p := range rest {
		head := fmt.Sprintf("%-*s → ", width, p)
		b.WriteString(wrapWords(head+strings.Join(slices.Sorted(slices.Values(allowed[p])), " "), strings.Repeat(" ", width+3), importsLine))
	}
	b.WriteString("```\n\n")
	var unused, roots []string
	for _, p := range slices.Sorted(maps.Keys(allowed)) {
		for _, imp := range slices.Sorted(slices.Values(allowed[p])) {
			if _, ok := imports[p][internalPrefix+imp]; !ok {
				unused = append(unused, "`"+p+" → "+imp+"`")
			}
		}
		if !imported[p] {
			roots = append(roots, "`"+p+"`")
		}
	}
	text := "Every allowed edge is used."
	if len(unused) > 0 {
		text = "Allowed and unused: " + strings.Join(unused, ", ") + "."
	}
	text += " No package under `internal/` may import " + orList(roots) + "."
	b.WriteString(wrapWords(text, "", importsLine))
	return b.String()
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// wrapWords breaks line between words before width, starting each
// continuation with indent, and ends every line with a newline.
func wrapWords(line, indent string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Split(line, " ") {
		if i > 0 && w != "" && n+1+len([]rune(w)) > width {
			b.WriteString("\n" + indent)
			n = len(indent)
		} else if i > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += len([]rune(w))
	}
	b.WriteString("\n")
	return b.String()
}
