package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

var (
	large    = flag.Bool("large", false, "BenchmarkReport: a run of 1,000,000 transactions and 1 hour of metrics of 4 nodes (default: 100,000 transactions, 6 minutes)")
	huge     = flag.Bool("huge", false, "BenchmarkReport: a run of 10,000,000 transactions and 2 hours of metrics of 4 nodes (issue 11's goal; ~5 GB of CSV: give -benchdir on a disk with room)")
	nodes    = flag.Int("nodes", 0, "BenchmarkReport: a testnet of this many validators (default 4); past 12, at most 50 peers each and three slow nodes, as ManyNodesSpec")
	benchDir = flag.String("benchdir", "", "BenchmarkReport: keep the generated run directory here and reuse it on later runs (default: a temporary directory)")
)

// benchSpec is the run BenchmarkReport reports on: 4 validators, 4
// connections, 1 KiB transactions, a block a second, metrics and /proc
// samples every second; 1,000,000 transactions over an hour with -large,
// 10,000,000 over two hours with -huge.
func benchSpec() resultstest.Spec {
	n, dur := 100_000.0, 6*time.Minute
	switch {
	case *huge:
		n, dur = 10_000_000, 2*time.Hour
	case *large:
		n, dur = 1_000_000, time.Hour
	}
	if *nodes > 0 {
		sp := ManyNodesSpec(*nodes)
		sp.Rate, sp.Duration, sp.After = n/4/dur.Seconds(), dur, 30*time.Second
		return sp
	}
	return resultstest.Spec{
		Nodes: 4, Connections: 4, Rate: n / 4 / dur.Seconds(), Duration: dur, Size: 1024,
		RejectEvery: 9973, MissingEvery: 19997, DuplicateEvery: 49999, NoReplyEvery: 7919, UnsentEvery: 99991,
		MultiRoundEvery: 97, After: 30 * time.Second,
	}
}

// benchRun returns the benchmark's run directory, generating it unless
// -benchdir names one that has it already.
func benchRun(b *testing.B) string {
	dir := *benchDir
	if dir == "" {
		dir = b.TempDir()
	}
	if _, err := os.Stat(filepath.Join(dir, results.RunFile)); err == nil {
		return dir
	}
	start := time.Now()
	if _, err := resultstest.WriteRun(dir, benchSpec()); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %s in %v", dir, time.Since(start).Round(time.Millisecond))
	return dir
}

// BenchmarkReport is `cometlab report`: analyse the run directory (every
// file read, summary.json written) and write report.md, every plot and
// report.html.
//
//	go test -run '^$' -bench Report -benchtime 1x -large -benchdir /tmp/large ./internal/report/
func BenchmarkReport(b *testing.B) {
	dir := benchRun(b)
	for b.Loop() {
		s, err := analysis.Analyze(dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(dir, s, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReportOneRead is BenchmarkReport reading the run's files once,
// for analysis and report together (Options.Input).
func BenchmarkReportOneRead(b *testing.B) {
	dir := benchRun(b)
	for b.Loop() {
		in, err := analysis.ReadInput(dir)
		if err != nil {
			b.Fatal(err)
		}
		s := analysis.Summarize(in)
		if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), s); err != nil {
			b.Fatal(err)
		}
		if err := Write(dir, s, Options{Input: &in}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchRun generates the benchmark's run directory into -benchdir
// and stops there (bench/report.sh then times `cometlab report` on it);
// it is skipped without -benchdir.
func TestBenchRun(t *testing.T) {
	if *benchDir == "" {
		t.Skip("generates the benchmark run into -benchdir")
	}
	if _, err := os.Stat(filepath.Join(*benchDir, results.RunFile)); err == nil {
		return
	}
	if _, err := resultstest.WriteRun(*benchDir, benchSpec()); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkVerdict is the saturation verdict of the report's opening on a
// streamed reading: txs.csv and metrics.csv scanned once more.
func BenchmarkVerdict(b *testing.B) {
	dir := benchRun(b)
	in, err := analysis.ReadStream(dir)
	if err != nil {
		b.Fatal(err)
	}
	s := analysis.Summarize(in)
	for b.Loop() {
		if _, err := verdictOf(dir, &in, s); err != nil {
			b.Fatal(err)
		}
	}
}
