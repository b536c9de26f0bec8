package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// sawtooth is a synthetic testnet whose mempools have a known per-block
// shape: blocks every 1.2 s; node i commits height H at commit(H) + i×10
// ms, which leaves 5·H + i transactions in its mempool (a backlog growing
// by 5 per block), and between commits the mempool fills by another 100
// transactions, removed by the next commit.
type sawtooth struct {
	t0     int64
	nodes  []string
	blocks int
}

const sawInterval = 1200 * time.Millisecond

func (s sawtooth) commit(h int) int64 { return s.t0 + int64(h)*int64(sawInterval) }

// after is node i's mempool right after its commit of h.
func (s sawtooth) after(h, i int) float64 { return float64(5*h + i) }

// at is node i's true mempool at time t (Unix ns), from the first commit on.
func (s sawtooth) at(t int64, i int) float64 {
	own := t - int64(i)*int64(10*time.Millisecond)
	h := int((own - s.t0) / int64(sawInterval))
	since := float64(own-s.commit(h)) / float64(sawInterval)
	return s.after(h, i) + 100*since
}

// rows is the mempool.csv the collector writes: each node asked 2 ms after
// each of its commits.
func (s sawtooth) rows() []results.MempoolSample {
	var out []results.MempoolSample
	for h := 1; h <= s.blocks; h++ {
		for i, n := range s.nodes {
			at := s.commit(h) + int64(i)*int64(10*time.Millisecond) + int64(2*time.Millisecond)
			out = append(out, results.MempoolSample{Height: int64(h), Node: n, At: at, Txs: int64(s.after(h, i)), Bytes: 256 * int64(s.after(h, i))})
		}
	}
	return out
}

// scrapes is metrics.csv's mempool_size of every node, scraped every
// second from the first commit on.
func (s sawtooth) scrapes() []*analysis.Series {
	var out []*analysis.Series
	for i, n := range s.nodes {
		sr := &analysis.Series{Node: n}
		for t := s.commit(1) + int64(500*time.Millisecond); t < s.commit(s.blocks); t += int64(time.Second) {
			sr.T, sr.V = append(sr.T, t), append(sr.V, s.at(t, i))
		}
		out = append(out, sr)
	}
	return out
}

// peaks counts the local maxima of a series (a value above the one before
// and not below the one after).
func peaks(v []float64) int {
	n := 0
	for k := 1; k+1 < len(v); k++ {
		if v[k] > v[k-1] && v[k] >= v[k+1] {
			n++
		}
	}
	return n
}

// TestMempoolPerHeight checks the plot data of mempool.csv on a synthetic
// run whose per-block shape is known: one column per block with each
// node's mempool right after its commit, and a total that only grows, as
// the backlog does; the 1-s scrapes of the same mempools beat against the
// 1.2-s blocks into a sawtooth of about one peak per 6 s that is in
// neither.
func TestMempoolPerHeight(t *testing.T) {
	s := sawtooth{t0: time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC).UnixNano(), nodes: []string{"v0", "v1", "v2", "v3"}, blocks: 50}
	heights, at, vals := analysis.MempoolByHeight(s.rows(), s.nodes)
	if len(heights) != s.blocks {
		t.Fatalf("%d columns, want one per block (%d)", len(heights), s.blocks)
	}
	for k, h := range heights {
		if h != int64(k+1) || at[k] != s.commit(k+1)+int64(2*time.Millisecond) {
			t.Errorf("column %d: height %d at %d, want %d at the first node's sample", k, h, at[k], k+1)
		}
		for i := range s.nodes {
			if vals[i][k] != s.after(k+1, i) {
				t.Errorf("node %d height %d: %v, want %v", i, h, vals[i][k], s.after(k+1, i))
			}
		}
	}
	g := mempoolGrid{xs: make([]float64, len(heights)), vals: vals}
	top := g.stacked()[len(s.nodes)-1]
	if p := peaks(top); p != 0 {
		t.Errorf("per-height total has %d peaks, want none (the backlog only grows)", p)
	}
	if want := 4*5*50.0 + 6; top[49] != want {
		t.Errorf("total after the last block %v, want %v", top[49], want)
	}

	// The same mempools scraped every second, as metrics.csv has them.
	_, scraped := analysis.Align(s.scrapes(), int64(time.Second))
	total := make([]float64, len(scraped[0]))
	for i := range scraped {
		for k, v := range scraped[i] {
			if !math.IsNaN(v) {
				total[k] += v
			}
		}
	}
	// 1-s samples of a 1.2-s sawtooth alias to a 6-s one: about 10 peaks
	// in the 60 s, for 50 blocks and no peak in the backlog.
	if p := peaks(total); p < 8 || p > 11 {
		t.Errorf("scraped total has %d peaks, want the 6-s beat (about 10)", p)
	}
}

// TestMempoolPlots checks that the mempool plots draw from mempool.csv when
// the run has it, say so, and fall back to metrics.csv otherwise.
func TestMempoolPlots(t *testing.T) {
	s := sawtooth{t0: time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC).UnixNano(), nodes: []string{"v0", "v1"}, blocks: 20}
	run := results.Run{LoadStart: time.Unix(0, s.t0), LoadEnd: time.Unix(0, s.commit(20)), Load: results.Load{DurationS: 24},
		Nodes: []results.Node{{Name: "v0"}, {Name: "v1"}}}
	in := &analysis.Input{Run: run, Mempool: s.rows()}
	d := newPlotData(run, in, analysis.Summary{}, Options{PlotWidth: 400, PlotHeight: 300})
	g, err := d.mempoolSeries()
	if err != nil || !g.perHeight || len(g.xs) != 20 {
		t.Fatalf("grid %+v, %v; want 20 heights from mempool.csv", g, err)
	}
	for _, draw := range []func() ([]byte, error){d.mempoolStacked, d.mempoolAverage} {
		if png, err := draw(); err != nil || len(png) == 0 {
			t.Errorf("plot: %v", err)
		}
	}
	if src := mempoolSource(in.Mempool); !strings.Contains(src, "mempool.csv: 20 heights") {
		t.Errorf("source %q", src)
	}
	old := &analysis.Input{Run: run}
	if _, err := newPlotData(run, old, analysis.Summary{}, Options{}).mempoolSeries(); err == nil {
		t.Error("no mempool.csv and no metrics.csv: want no plot")
	}
	if src := mempoolSource(nil); !strings.Contains(src, "metrics.csv (this run has no mempool.csv)") {
		t.Errorf("source %q", src)
	}
}
