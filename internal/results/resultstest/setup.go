package resultstest

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// WriteFile writes data to path, creating its directory, and fails the
// test on error.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteCSV writes rows to the CSV file path with the results package's
// writer, and fails the test on error.
func WriteCSV[T any, P interface {
	*T
	results.Record
}](t testing.TB, path, header string, rows []T) {
	t.Helper()
	if err := writeRows[T, P](path, header, rows); err != nil {
		t.Fatal(err)
	}
}

// GzipFile replaces the file path by path.gz, compressed as well as gzip
// can (the checked-in fixture runs were written so), and fails the test on
// error.
func GzipFile(t testing.TB, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	WriteFile(t, path+".gz", z.Bytes())
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// CopyRun copies the regular files of the run directory src into a new
// temporary directory, leaving out what analysis and reports write
// (summary.json, report.md, report.html), and returns it.
func CopyRun(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case results.SummaryFile, results.ReportFile, results.ReportHTML:
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		WriteFile(t, filepath.Join(dst, e.Name()), b)
	}
	return dst
}
