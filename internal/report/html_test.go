package report

import (
	"path/filepath"
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
