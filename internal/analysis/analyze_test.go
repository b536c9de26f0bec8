package analysis

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// writeRun writes in as a run directory: run.json and the CSV files.
func writeRun(t testing.TB, dir string, in Input) {
	t.Helper()
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), in.Run); err != nil {
		t.Fatal(err)
	}
	write := func(file, header string, n int, row func(i int) results.Record) {
		w, err := results.Create(filepath.Join(dir, file), header)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := w.Write(row(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(results.SentFile, results.SentHeader, len(in.Sent), func(i int) results.Record { return &in.Sent[i] })
	write(results.RepliesFile, results.RepliesHeader, len(in.Replies), func(i int) results.Record { return &in.Replies[i] })
	write(results.TxsFile, results.TxsHeader, len(in.Txs), func(i int) results.Record { return &in.Txs[i] })
	write(results.BlocksFile, results.BlocksHeader, len(in.Blocks), func(i int) results.Record { return &in.Blocks[i] })
	write(results.AdoptionFile, results.AdoptionHeader, len(in.Adoption), func(i int) results.Record { return &in.Adoption[i] })
	rows := metricRows(in)
	write(results.MetricsFile, results.MetricsHeader, len(rows), func(i int) results.Record { return &rows[i] })
	write(results.ResourceFile, results.ResourcesHeader, len(in.Resources), func(i int) results.Record { return &in.Resources[i] })
}

func gzipFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(path)
}

func TestAnalyze(t *testing.T) {
	in := synthetic(2, 300, 20, true)
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		wantErr string
		missing []string
	}{
		{name: "complete", prepare: func(*testing.T, string) {}},
		{name: "gzipped", prepare: func(t *testing.T, dir string) {
			gzipFile(t, filepath.Join(dir, results.TxsFile))
			gzipFile(t, filepath.Join(dir, results.SentFile))
		}},
		{name: "optional files missing", prepare: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, results.AdoptionFile))
			os.Remove(filepath.Join(dir, results.RepliesFile))
			os.Remove(filepath.Join(dir, results.MetricsFile))
			os.Remove(filepath.Join(dir, results.ResourceFile))
		}, missing: []string{results.RepliesFile, results.AdoptionFile, results.MetricsFile, results.ResourceFile}},
		{name: "metrics gzipped", prepare: func(t *testing.T, dir string) {
			gzipFile(t, filepath.Join(dir, results.MetricsFile))
		}},
		{name: "no run.json", prepare: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, results.RunFile))
		}, wantErr: "read run"},
		{name: "no sent.csv", prepare: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, results.SentFile))
		}, wantErr: "read " + results.SentFile},
		{name: "bad blocks.csv", prepare: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, results.BlocksFile), []byte("height,time\n1,2\n"), 0o644)
		}, wantErr: "blocks.csv: header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRun(t, dir, in)
			tt.prepare(t, dir)
			s, err := Analyze(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Analyze error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := in
			want.Missing = tt.missing
			if tt.missing != nil {
				if slices.Contains(tt.missing, results.RepliesFile) {
					want.Replies = nil
				}
				if slices.Contains(tt.missing, results.AdoptionFile) {
					want.Adoption = nil
				}
				if slices.Contains(tt.missing, results.MetricsFile) {
					want.Metrics = nil
				}
				if slices.Contains(tt.missing, results.ResourceFile) {
					want.Resources = nil
				}
			}
			if ws := Summarize(want); !reflect.DeepEqual(s, ws) {
				t.Errorf("Analyze = %+v\nwant %+v", s, ws)
			}
			var disk Summary
			if err := results.ReadJSON(filepath.Join(dir, results.SummaryFile), &disk); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(disk, s) {
				t.Errorf("summary.json = %+v\nwant %+v", disk, s)
			}
		})
	}
}

// BenchmarkAnalyze1M reads, summarises and writes a 1,000,000-transaction
// run directory: the whole `cometlab analyze` path.
func BenchmarkAnalyze1M(b *testing.B) {
	dir := b.TempDir()
	writeRun(b, dir, synthetic(10, 100_000, 1000, true))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Analyze(dir); err != nil {
			b.Fatal(err)
		}
	}
}
