package report

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// perturbedSpec is a 60-second run of 4 validators with a kill of
// validator03 (down 10–15.5 s: it restarts at 15 s and is up half a
// second later), a pause of validator02 (25–30 s), a disconnect of
// validator01 (40–45 s), validator03 dying on its own at 52 s, and an
// ephemeral node that syncs at 5 s, is stopped and wiped at 20 s and
// syncs again at 35 s.
func perturbedSpec() resultstest.Spec {
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	ev := func(at float64, node, kind, detail string) results.Event {
		return results.Event{At: int64(s(at)), Node: node, Kind: kind, Detail: detail}
	}
	spec := resultstest.Spec{ID: "3c9a1d2e-5f60-4a71-8b92-a3b4c5d6e7f8", Nodes: 4, Connections: 2, Rate: 10, Duration: 60 * time.Second, Size: 512,
		MultiRoundEvery: 17,
		Down: map[string][][2]time.Duration{
			"validator03": {{s(10), s(15.5)}},
			"validator02": {{s(25), s(30)}},
			"validator01": {{s(40), s(45)}},
		},
		Stop: map[string]time.Duration{"validator03": s(52)},
		Events: []results.Event{
			ev(-8, "validator00", results.EventStart, "4100"),
			ev(-8, "validator01", results.EventStart, "4101"),
			ev(-8, "validator02", results.EventStart, "4102"),
			ev(-8, "validator03", results.EventStart, "4103"),
			ev(10, "validator03", results.EventPerturbBegin, "kill 1/1, down 5s"),
			ev(10, "validator03", results.EventKill, ""),
			ev(10.01, "validator03", results.EventExit, "signal 9"),
			ev(15, "validator03", results.EventStart, "4242"),
			ev(15, "validator03", results.EventPerturbEnd, "kill 1/1"),
			ev(25, "validator02", results.EventPerturbBegin, "pause 1/1, down 5s"),
			ev(25, "validator02", results.EventPause, ""),
			ev(30, "validator02", results.EventResume, ""),
			ev(30, "validator02", results.EventPerturbEnd, "pause 1/1"),
			ev(40, "validator01", results.EventPerturbBegin, "disconnect 1/1, down 5s"),
			ev(40, "validator01", results.EventCut, ""),
			ev(45, "validator01", results.EventRestore, ""),
			ev(45, "validator01", results.EventPerturbEnd, "disconnect 1/1"),
			ev(52, "validator03", results.EventExit, "signal 9"),
			// The testnet's stop after the load: no term event, graceful
			// exits; not nodes dying on their own.
			ev(62, "validator00", results.EventExit, "exit code 0"),
			ev(62, "validator01", results.EventExit, "exit code 0"),
			ev(62.1, "validator02", results.EventExit, "signal 15"),
			// An ephemeral full node syncing twice (a rotation).
			ev(5, "ephemeral00", results.EventStart, "5000"),
			ev(8, "ephemeral00", results.EventCaughtUp, "height 110"),
			ev(20, "ephemeral00", results.EventTerm, ""),
			ev(20.5, "ephemeral00", results.EventExit, "exit code 0"),
			ev(20.6, "ephemeral00", results.EventWipe, ""),
			ev(35, "ephemeral00", results.EventStart, "5001"),
			ev(39.5, "ephemeral00", results.EventCaughtUp, "height 142"),
		},
	}
	slices.SortStableFunc(spec.Events, func(a, b results.Event) int { return cmp.Compare(a.At, b.At) })
	return spec
}

// writePerturbedLogs writes the node logs of the perturbed run: routine
// error lines on every node, and validator03's panic before it died on
// its own at 52 s (lines as CometBFT's plain format and Go write them).
func writePerturbedLogs(t *testing.T, dir string) {
	info := "I[2026-11-26|05:32:48.196] finalized block                              module=state height=12 num_txs_res=3\n"
	peer := "E[2026-11-26|02:23:46.652] Stopping peer for error                      module=p2p peer=\"Peer{MConn{127.0.0.1:46734} 0fd3e3447bbc7a3bd8acd1e64419db134a88dae3 in}\" err=EOF\n"
	rpc := "E[2026-11-26|02:23:46.651] error while stopping connection              module=rpc-server protocol=websocket error=\"already stopped\"\n"
	for i := range 3 {
		resultstest.WriteFile(t, filepath.Join(dir, results.LogsDir, fmt.Sprintf("validator%02d.log", i)), []byte(info+peer+info+rpc))
	}
	resultstest.WriteFile(t, filepath.Join(dir, results.LogsDir, "validator03.log"), []byte(info+peer+peer+
		"panic: runtime error: invalid memory address or nil pointer dereference\n"+
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c]\n\n"+
		"goroutine 214 [running]:\n"+
		"github.com/cometbft/cometbft/internal/consensus.(*State).finalizeCommit(0xc000a1c008, 0x8c)\n"+
		"\t/go/pkg/mod/github.com/cometbft/cometbft@v0.40.0/internal/consensus/state.go:1790 +0x5d1\n"))
}

func TestPerturbedRun(t *testing.T) {
	dir := t.TempDir()
	if _, err := resultstest.WriteRun(dir, perturbedSpec()); err != nil {
		t.Fatal(err)
	}
	writePerturbedLogs(t, dir)
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.SummaryFile, results.ReportFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		resultstest.Golden(t, filepath.Join("testdata", "perturbed", f+".golden"), b)
	}
	checkPlots(t, dir)
	// Every figure of perturbations and node events.
	for _, m := range analysis.Dictionary() {
		if m.Group != analysis.GroupEvents || strings.HasPrefix(m.ID, "partition_") || strings.HasPrefix(m.ID, "upgrade") { // TestPartitionSection, TestUpgradeSection
			continue
		}
		found := false
		for _, p := range s.Perturbations {
			_, ok := p.Figures[m.ID]
			found = found || ok
		}
		if _, ok := s.Metrics[m.ID]; !found && !ok {
			t.Errorf("the perturbed run does not exercise %s", m.ID)
		}
	}
	if testing.Verbose() {
		// Keep the plots to look at: go test -v -run TestPerturbedRun ./internal/report/
		out := filepath.Join(os.TempDir(), "cometlab-perturbed-report")
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		t.Logf("report in %s", out)
	}
}

// A run whose events.csv holds only what every run has (the testnet's
// start before the load, its stop after) draws every plot exactly as a
// run without events.csv.
func TestOrdinaryEventsDrawNoMarks(t *testing.T) {
	dir := copyRun(t, qaRun)
	in, err := analysis.ReadInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := analysis.Summarize(in)
	plain := drawPlots(newPlotData(in.Run, &in, s, Options{}))
	start, end := in.Run.LoadStart.UnixNano(), in.Run.LoadEnd.UnixNano()
	for i, n := range analysis.RunNodes(in) {
		in.Events = append(in.Events,
			results.Event{At: start - int64(10*time.Second), Node: n, Kind: results.EventStart, Detail: "pid 1"},
			results.Event{At: end + int64(20*time.Second) + int64(i), Node: n, Kind: results.EventExit, Detail: "exit code 0"})
	}
	slices.SortStableFunc(in.Events, func(a, b results.Event) int { return cmp.Compare(a.At, b.At) })
	d := newPlotData(in.Run, &in, s, Options{})
	if d.marks != nil {
		t.Fatalf("marks = %+v, want none", d.marks)
	}
	for name, r := range drawPlots(d) {
		if !bytes.Equal(r.png, plain[name].png) {
			t.Errorf("%s differs with ordinary events", name)
		}
	}
}
