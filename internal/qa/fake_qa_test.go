package qa

// The QA tests' fake runner (qa_test.go uses it): recorded runs in place
// of real ones, shifted to make a slower or noisier candidate.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
)

// fixtureRun is a recorded run, by its absolute path (the tests change
// directory).
var fixtureRun, _ = filepath.Abs("../../testdata/runs/small")

// fakeQA stands in for the runner in every series of a QA: each run
// copies the recorded run (its blocks later by slowCand for the
// candidate's runs of compared tests: a slower chain) and reports
// evidence of a testnet that keeps up with knee tx/s in all. At call
// interruptAt it reports the run interrupted, as a Ctrl-C does; a run
// whose directory contains fail fails.
type fakeQA struct {
	t        *testing.T
	knee     float64
	slowCand int64 // ns
	// swing, when set, adds ±swing to slowCand in alternate rounds: a
	// candidate slower on average but noisy, its difference undecided in
	// few rounds.
	swing       int64 // ns
	calls       []string
	last        manifest.Resolved // the last run's manifest
	interruptAt int
	fail        string
	safe        bool // every run without the recorded run's duplicate commit
}

func (f *fakeQA) run(_ context.Context, m manifest.Resolved, dir string) series.Outcome {
	f.calls, f.last = append(f.calls, dir), m
	if len(f.calls) == f.interruptAt {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			f.t.Fatal(err)
		}
		return series.Outcome{Status: results.StatusInterrupted, Err: errors.New("interrupted")}
	}
	if f.fail != "" && strings.Contains(dir, f.fail) {
		return series.Outcome{Status: results.StatusFailed, Err: errors.New("the testnet did not start")}
	}
	if err := os.CopyFS(dir, os.DirFS(fixtureRun)); err != nil {
		f.t.Fatal(err)
	}
	if base := filepath.Base(dir); f.slowCand > 0 && strings.Contains(dir, "/runs/") && strings.HasSuffix(base, "-cand") {
		n, _ := strconv.Atoi(base[:2])
		d := f.slowCand + int64(n)*7e6
		if f.swing > 0 {
			d += f.swing * int64(1-2*(n%2))
		}
		f.shiftBlocks(dir, d)
	} else if strings.Contains(dir, "/runs/") {
		n, _ := strconv.Atoi(base[:2])
		f.shiftBlocks(dir, int64(n)*5e6)
	}
	if strings.Contains(dir, "/tests/storage/") {
		f.storageRun(dir)
	} else if f.safe {
		f.dropDuplicate(dir)
	}
	load := float64(m.Load.Connections) * m.Load.Rate
	committed := min(load, f.knee)
	ratio, tps, lat := committed/load, committed, 500.0
	ev := saturation.Evidence{Connections: m.Load.Connections, Rate: m.Load.Rate, DurationS: m.Load.Duration.Seconds(),
		Status: results.StatusComplete, ExpectedTxs: load * m.Load.Duration.Seconds(), CommittedTxs: committed * m.Load.Duration.Seconds(),
		ThroughputRatio: &ratio, CommittedTPS: &tps, LatencyMeanMS: &lat, LatencyP99MS: &lat}
	v := saturation.Verdict{Pass: load <= f.knee, Checks: []saturation.Check{{Name: saturation.CheckThroughput, Pass: load <= f.knee}}}
	return series.Outcome{Status: results.StatusComplete, Evidence: &ev, Verdict: &v}
}

// storageRun analyzes a storage matrix's run as a real run is (its
// summary.json), after taking the recorded run's one duplicate commit
// out (a safety violation) and keeping every node's data directory at its
// first size in the pruning cells: they grow by nothing.
func (f *fakeQA) storageRun(dir string) {
	f.dropDuplicate(dir)
	if strings.Contains(dir, "retain_blocks_10") {
		p := filepath.Join(dir, results.ResourceFile)
		b, err := os.ReadFile(p)
		if err != nil {
			f.t.Fatal(err)
		}
		lines, first := strings.Split(string(b), "\n"), map[string]string{}
		for i := 1; i < len(lines); i++ {
			cols := strings.Split(lines[i], ",")
			if len(cols) < 6 {
				continue
			}
			if _, ok := first[cols[1]]; !ok {
				first[cols[1]] = cols[5]
			}
			cols[5] = first[cols[1]]
			lines[i] = strings.Join(cols, ",")
		}
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	if _, err := analysis.Analyze(dir); err != nil {
		f.t.Fatal(err)
	}
}

// shiftBlocks makes every block of the run in dir commit d later: its
// transactions' block latency grows by d.
func (f *fakeQA) shiftBlocks(dir string, d int64) {
	for _, name := range []string{results.BlocksFile, results.TxsFile} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			f.t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		head := strings.Split(lines[0], ",")
		for i := 1; i < len(lines); i++ {
			cols := strings.Split(lines[i], ",")
			for j, h := range head {
				if (h == "time_ns" || h == "commit_time_ns" || h == "block_time_ns") && j < len(cols) {
					v, _ := strconv.ParseInt(cols[j], 10, 64)
					cols[j] = strconv.FormatInt(v+d, 10)
				}
			}
			lines[i] = strings.Join(cols, ",")
		}
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

// qaTestOptions is an A/A QA of the default manifest with a small grid.
func qaTestOptions(t *testing.T, dir string, f *fakeQA) Options {
	t.Helper()
	def := manifest.Default()
	m, err := def.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	sides, labels := []manifest.Resolved{m, m}, []string{"base", "cand"}
	pl, err := plan.Make(plan.Input{Sides: sides, Labels: labels, Repeat: 2, Connections: []int{1, 2}, Factors: []float64{0.5, 1, 2}, SearchRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Sides: sides, Labels: labels, Candidate: "consensus.timeout_commit=2s", Plan: pl, Thresholds: compare.DefaultThresholds(),
		Dir: dir, Command: "cometlab qa --candidate 'consensus.timeout_commit=2s'", Env: series.Env{Exec: f.run}}
}

// defaultOn is the default manifest resolved on release v.
func defaultOn(t *testing.T, v string) []manifest.Resolved {
	t.Helper()
	m := manifest.Default()
	if err := m.Set("cometbft_version", v); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return []manifest.Resolved{r}
}

// dropDuplicate takes the recorded run's one duplicate commit (a safety
// violation) out of the run in dir.
func (f *fakeQA) dropDuplicate(dir string) {
	txs := filepath.Join(dir, results.TxsFile)
	b, err := os.ReadFile(txs)
	if err != nil {
		f.t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasSuffix(l, ",1") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(txs, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		f.t.Fatal(err)
	}
}
