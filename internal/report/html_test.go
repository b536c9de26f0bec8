package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHTMLInlinesImages(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "plots"), 0o755)
	os.WriteFile(filepath.Join(dir, "plots", "a.png"), []byte("\x89PNG fake"), 0o644)
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
