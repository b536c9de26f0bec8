package report

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

func TestHTMLInlinesImages(t *testing.T) {
	dir := t.TempDir()
	resultstest.WriteFile(t, filepath.Join(dir, "plots", "a.png"), []byte("\x89PNG fake"))
	md := []byte("# T\n\n| a | b |\n| --- | ---: |\n| 1 | 2 |\n\n![x](plots/a.png)\n")
	out, err := HTML("T <run>", md, dir)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"<title>T &lt;run&gt;</title>", "<table>", `<img src="data:image/png;base64,iVBORyBmYWtl"`} {
		if !strings.Contains(s, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(s, `src="plots/`) {
		t.Error("an image was left as a file reference")
	}
	if _, err := HTML("t", []byte("![x](plots/missing.png)"), dir); err == nil {
		t.Error("want an error for a missing image")
	}
}

// TestHTMLNoMailLinks renders a node's P2P address bare, in a table and
// as a code span: none becomes a mailto: link, while URLs stay links.
func TestHTMLNoMailLinks(t *testing.T) {
	md := []byte("# T\n\nnode 6f1c2d3e4b5a@127.0.0.1:26656 and https://example.org/x\n\n" +
		"| node | P2P |\n| --- | --- |\n| v0 | 6f1c2d3e4b5a@127.0.0.1:26656 |\n| v1 | " + codeSpan("a1b2@127.0.0.1:26666") + " |\n")
	out, err := HTML("T", md, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, "page", out)
	for _, want := range []string{`<a href="https://example.org/x">`, "<code>a1b2@127.0.0.1:26666</code>"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

// TestHTMLHeadingIDs checks that a link to a heading's GitHub anchor
// finds its heading in the HTML.
func TestHTMLHeadingIDs(t *testing.T) {
	md := []byte("# Run x\n\nSee the [appendix](#" + appendixAnchor + ").\n\n## Appendix: Experiment\n\nx\n")
	out, err := HTML("T", md, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`href="#` + appendixAnchor + `"`, `<h2 id="` + appendixAnchor + `">`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}

var (
	tableRE   = regexp.MustCompile(`(?s)<table>(.*?)</table>`)
	emptyTHRE = regexp.MustCompile(`<th[^>]*>\s*</th>`)
)

// checkPage checks an HTML report: no mailto: link, and every table has a
// header row whose every cell names its column.
func checkPage(t *testing.T, name string, page []byte) {
	t.Helper()
	if bytes.Contains(page, []byte("mailto:")) {
		t.Errorf("%s has a mailto: link", name)
	}
	tables := tableRE.FindAllSubmatch(page, -1)
	for i, tb := range tables {
		if !bytes.Contains(tb[1], []byte("<thead>")) {
			t.Errorf("%s: table %d has no header row", name, i+1)
		}
		if m := emptyTHRE.Find(tb[1]); m != nil {
			t.Errorf("%s: table %d has an empty header cell %s", name, i+1, m)
		}
	}
}
