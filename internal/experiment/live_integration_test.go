package experiment_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestLiveReadBack loads a real 4-validator testnet for 15 s while
// reading its blocks from another node as they are committed, then reads
// the same chain again after the fact (`cometlab readback`): txs.csv,
// blocks.csv and the summary must be the same, and only the last blocks
// may be left to read when the load ends.
func TestLiveReadBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet")
	}
	experimenttest.Proves(t)
	ctx := context.Background()
	dir := t.TempDir()
	r := experimenttest.Resolved(t, 300, 15*time.Second)
	tnDir := filepath.Join(dir, "testnet")
	up, err := experiment.Up(ctx, experiment.UpOptions{Manifest: r, Dir: tnDir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	downAtCleanup(t, tnDir)
	run := filepath.Join(dir, "run")
	var out bytes.Buffer
	res, err := experiment.Load(ctx, experiment.LoadOptions{Endpoint: up.Nodes[0].RPC, ReadFrom: up.Nodes[1].RPC, Manifest: r,
		Dir: run, Readback: true, Env: experiment.Env{Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, res, 4500)
	// Live lines every 5 s, one a line off a terminal.
	if n := strings.Count(out.String(), "\nlive "); n < 3 {
		t.Errorf("%d live lines, want one every 5 s", n)
	}
	if !regexp.MustCompile(`live +\d+s  sent \d+  committed [1-9]\d*  \d+ tx/s  latency p50 \d+ ms p99 \d+ ms  mempools \d+  late \d+`).MatchString(out.String()) {
		t.Error("no live line with committed transactions and latencies")
	}
	// Only the last blocks were left after the load and drain.
	m := regexp.MustCompile(`read-back: (\d+) heights read during the load and drain from ` + regexp.QuoteMeta(up.Nodes[1].RPC)).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatal("no read-back line naming the reader node")
	}
	live, _ := strconv.Atoi(m[1])
	total := res.Run.LastHeight - res.Run.FirstHeight + 1
	if left := total - int64(live); int64(live) < total/2 || left > 10 {
		t.Errorf("%d of %d heights read live, %d left after the load", live, total, left)
	}

	files := map[string][]byte{}
	for _, f := range []string{results.TxsFile, results.BlocksFile, results.SummaryFile} {
		if files[f], err = os.ReadFile(filepath.Join(run, f)); err != nil {
			t.Fatal(err)
		}
	}
	// The same chain read after the fact, from the target.
	if _, err := experiment.ReadBack(ctx, run, up.Nodes[0].RPC, &out); err != nil {
		t.Fatal(err)
	}
	for f, live := range files {
		after, err := os.ReadFile(filepath.Join(run, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(live, after) {
			t.Errorf("%s read live differs from the read-back after the fact:\n%s", f, resultstest.Diff(string(after), string(live)))
		}
	}
}

// downAtCleanup stops the testnet of tnDir (`cometlab testnet up`'s) when
// the test ends, and fails it for a node process left behind.
func downAtCleanup(t *testing.T, tnDir string) {
	t.Helper()
	t.Cleanup(func() {
		if err := experiment.Down(tnDir, 10*time.Second, os.Stderr); err != nil {
			t.Error(err)
		}
		if left := testnettest.ProcessesUnder(t, tnDir); len(left) > 0 {
			t.Errorf("node processes left behind: %v", left)
		}
	})
}
