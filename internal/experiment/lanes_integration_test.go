package experiment_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
)

// lanesManifest is 4 validators of v2.0.0-rc1 with the e2e app's two
// lanes, the load spread 1:3 over them, 100 tx/s for 8 s.
const lanesManifest = `cometbft_version = "v2.0.0-rc1"
validators = 4
app = { kind = "e2e", lanes = { high = 10, low = 1 } }
[load]
rate = 100
duration = "8s"
lane_weights = { high = 1, low = 3 }
`

// TestLanesReal runs a load over v2.0's mempool lanes on real nodes:
// every transaction commits; each lane has its share of the load and its
// latency in summary.json; and the nodes themselves put the transactions
// in both lanes: CometBFT's own cometbft_mempool_tx_life_span histogram,
// by lane, counts transactions in "high" and in "low" (had the app not
// read the lane from the payload, every one would be in its default
// lane, one of the two).
func TestLanesReal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	res, dir := runBuilt(t, loadManifest(t, "lanes.toml", lanesManifest))
	checkAccounted(t, res, 800)
	ls := res.Summary.Lanes
	if len(ls) != 2 || ls[0].ID != "high" || ls[0].Priority != 10 || ls[1].ID != "low" || ls[1].Weight != 3 {
		t.Fatalf("summary lanes %+v", ls)
	}
	total := ls[0].Committed + ls[1].Committed
	if share := float64(ls[0].Committed) / float64(total); total != 800 || share < 0.15 || share > 0.35 {
		t.Errorf("lanes committed %d + %d, want 800 with about a quarter in high", ls[0].Committed, ls[1].Committed)
	}
	for _, l := range ls {
		if l.BlockP50 == nil || *l.BlockP50 <= 0 {
			t.Errorf("lane %s has no latency", l.ID)
		}
		t.Logf("lane %s: sent %d committed %d, block latency p50 %v ms", l.ID, l.Sent, l.Committed, *l.BlockP50)
	}
	// The nodes' own count of transactions by lane: the last value of
	// each node's tx_life_span count, summed.
	f, err := os.Open(filepath.Join(dir, results.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	last := map[string]float64{} // node + lane → count
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		c := strings.Split(sc.Text(), ",")
		if len(c) != 5 || c[2] != "cometbft_mempool_tx_life_span_count" {
			continue
		}
		for _, l := range strings.Split(c[3], ";") {
			if lane, ok := strings.CutPrefix(l, "lane="); ok {
				v, _ := strconv.ParseFloat(c[4], 64)
				last[c[1]+"/"+lane] = v
			}
		}
	}
	byLane := map[string]float64{}
	for k, v := range last {
		byLane[k[strings.Index(k, "/")+1:]] += v
	}
	if byLane["high"] <= 0 || byLane["low"] <= 0 {
		t.Errorf("the nodes' mempools counted transactions by lane %v, want some in high and in low", byLane)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "lanes_latency.png")); err != nil {
		t.Errorf("no lanes plot: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !strings.Contains(string(b), "## Mempool lanes") {
		t.Errorf("report.md (%v) has no Mempool lanes section", err)
	}
}
