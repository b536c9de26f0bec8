package analysis

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// writeRun writes in as a run directory: run.json and the CSV files.
func writeRun(t testing.TB, dir string, in Input) {
	t.Helper()
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), in.Run); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteCSV(t, filepath.Join(dir, results.SentFile), results.SentHeader, in.Sent)
	resultstest.WriteCSV(t, filepath.Join(dir, results.RepliesFile), results.RepliesHeader, in.Replies)
	resultstest.WriteCSV(t, filepath.Join(dir, results.TxsFile), results.TxsHeader, in.Txs)
	resultstest.WriteCSV(t, filepath.Join(dir, results.BlocksFile), results.BlocksHeader, in.Blocks)
	resultstest.WriteCSV(t, filepath.Join(dir, results.AdoptionFile), results.AdoptionHeader, in.Adoption)
	resultstest.WriteCSV(t, filepath.Join(dir, results.MetricsFile), results.MetricsHeader, metricRows(in))
	resultstest.WriteCSV(t, filepath.Join(dir, results.ResourceFile), results.ResourcesHeader, in.Resources)
	resultstest.WriteCSV(t, filepath.Join(dir, results.HostFile), results.HostHeader, in.Host)
}

// remove removes the files of dir named, and fails the test on error.
func remove(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
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
			resultstest.GzipFile(t, filepath.Join(dir, results.TxsFile))
			resultstest.GzipFile(t, filepath.Join(dir, results.SentFile))
		}},
		{name: "optional files missing", prepare: func(t *testing.T, dir string) {
			remove(t, dir, results.AdoptionFile, results.RepliesFile, results.MetricsFile, results.ResourceFile)
		}, missing: []string{results.RepliesFile, results.AdoptionFile, results.MetricsFile, results.ResourceFile}},
		{name: "metrics gzipped", prepare: func(t *testing.T, dir string) {
			resultstest.GzipFile(t, filepath.Join(dir, results.MetricsFile))
		}},
		{name: "no run.json", prepare: func(t *testing.T, dir string) {
			remove(t, dir, results.RunFile)
		}, wantErr: "read run"},
		{name: "no sent.csv", prepare: func(t *testing.T, dir string) {
			remove(t, dir, results.SentFile)
		}, wantErr: "read " + results.SentFile},
		{name: "bad blocks.csv", prepare: func(t *testing.T, dir string) {
			resultstest.WriteFile(t, filepath.Join(dir, results.BlocksFile), []byte("height,time\n1,2\n"))
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
