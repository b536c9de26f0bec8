package resultstest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// update is the one -update flag of every test binary that imports this
// package.
var update = flag.Bool("update", false, "rewrite the golden files, the expected outputs of the data-driven cases and the fixture runs under testdata/")

// Updating reports whether the test binary runs with -update: golden files
// and the expected outputs of data-driven cases are then rewritten rather
// than checked, and fixtures regenerated.
func Updating() bool { return *update }

// Golden compares got with the golden file at path or, under -update,
// writes got there (creating its directory). A difference fails the test
// and shows the first differing lines.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		WriteFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", path, Diff(string(want), string(got)))
	}
}

// Section keeps the part of the page at path between the marker lines
// begin and end (each with its newline) equal to text: the generated
// section of a hand-written page, such as the version table of
// docs/versions.md. A difference fails the test and shows the first
// differing lines or, under -update, rewrites that part alone. Missing
// markers fail the test either way.
func Section(t testing.TB, path, begin, end, text string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	i, j := strings.Index(page, begin), strings.Index(page, end)
	if i < 0 || j < i+len(begin) {
		t.Fatalf("%s lacks the markers %q … %q", path, begin, end)
	}
	onPage := page[i+len(begin) : j]
	switch {
	case onPage == text:
	case *update:
		WriteFile(t, path, []byte(page[:i+len(begin)]+text+page[j:]))
	default:
		t.Errorf("%s: the section after %q is out of date (go test -update to rewrite it):\n%s", path, strings.TrimSpace(begin), Diff(onPage, text))
	}
}

// Diff shows the first ten differing lines of want and got, quoted.
func Diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	line := func(l []string, i int) string {
		if i >= len(l) {
			return "(no line)"
		}
		return fmt.Sprintf("%q", l[i])
	}
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 10; i++ {
		if w, g := line(wl, i), line(gl, i); w != g {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, w, g)
			shown++
		}
	}
	return b.String()
}
