package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestLanesSection: the Mempool lanes section of a load over two lanes
// (golden: highest priority first, each lane's share of the weights), and
// none for a load without lanes.
func TestLanesSection(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	s := analysis.Summary{Lanes: []analysis.LaneSummary{
		{ID: "low", Priority: 1, Weight: 9, Sent: 9012, Committed: 9000, BlockP50: f(2400), BlockP95: f(5100), BlockP99: f(6020.4)},
		{ID: "high", Priority: 10, Weight: 1, Sent: 988, Committed: 988, BlockP50: f(1100), BlockP95: f(1900), BlockP99: f(2300)},
		{ID: "idle", Priority: 5, Weight: 0},
	}}
	var b bytes.Buffer
	mdWriter{w: &b}.lanes(s)
	resultstest.Golden(t, filepath.Join("testdata", "lanes.md.golden"), b.Bytes())
	b.Reset()
	mdWriter{w: &b}.lanes(analysis.Summary{})
	if b.Len() != 0 {
		t.Errorf("a lanes section for a load without lanes:\n%s", b.String())
	}
}

// TestLanesPlot draws lanes_latency.png from two lanes' commits (a PNG of
// the default size), and none for a load without lanes.
func TestLanesPlot(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	lanes := []results.Lane{{ID: "hi", Weight: 1, Priority: 9}, {ID: "lo", Weight: 1, Priority: 1}}
	run := results.Run{Target: "v1", LoadStart: t0, LoadEnd: t0.Add(10 * time.Second),
		Load: results.Load{Connections: 1, Rate: 50, DurationS: 10, Lanes: lanes}}
	pick := payload.NewLanePicker([]payload.LaneWeight{{ID: "hi", Weight: 1}, {ID: "lo", Weight: 1}})
	in := &analysis.Input{Run: run}
	for seq := range uint64(500) {
		sent := t0.Add(time.Duration(seq) * 20 * time.Millisecond).UnixNano()
		lat := int64(3e9)
		if pick.Pick(0, seq) == "hi" {
			lat = 1e9 + int64(seq)*1e6
		}
		in.Sent = append(in.Sent, results.Sent{Conn: 0, Seq: seq, Intended: sent, Actual: sent, Size: 256})
		in.Txs = append(in.Txs, results.Tx{Conn: 0, Seq: seq, Sent: sent, Height: int64(seq/50 + 1), CommitTime: sent + lat})
	}
	d := newPlotData(run, in, analysis.Summarize(*in), Options{})
	if v, ok := d.agg.LaneLatency(1, 50); !ok || v != 3e9 {
		t.Errorf("lane lo's median %v (%v), want 3 s", v, ok)
	}
	b, err := d.lanesLatency()
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, b)
	run.Load.Lanes = nil
	if _, err := newPlotData(run, &analysis.Input{Run: run}, analysis.Summary{}, Options{}).lanesLatency(); err == nil {
		t.Error("a lanes plot for a load without lanes")
	}
}
