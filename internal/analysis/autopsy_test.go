package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// autopsyChain is a healthy chain of 40 heights from 1 s apart (jitter of
// a few ms), four validators v1…v4 of equal power proposing in turn
// (height H's round-0 proposer is v((H mod 4)+1)), every precommit for
// the block 900 ms after its time, every node committing at the commit.
func autopsyChain() Input {
	const s = int64(1e9)
	in := Input{Validators: map[string]string{}}
	addr := func(i int64) string { return fmt.Sprintf("A%d", i%4+1) }
	for i := int64(1); i <= 4; i++ {
		in.Validators[fmt.Sprintf("A%d", i)] = fmt.Sprintf("v%d", i)
	}
	t := int64(1_800_000_000) * s
	for h := int64(1); h <= 40; h++ {
		next := t + s + (h%3)*3e6
		in.Blocks = append(in.Blocks, results.Block{Height: h, Time: t, CommitTime: next, Proposer: addr(h)})
		for i := int64(1); i <= 4; i++ {
			in.Precommits = append(in.Precommits, results.Precommit{Height: h, Validator: addr(i - 1), Node: fmt.Sprintf("v%d", (i-1)%4+1),
				Flag: "commit", OffsetMs: 900})
			in.Adoption = append(in.Adoption, results.Adoption{Height: h, Node: fmt.Sprintf("v%d", i), At: next + i*1e6})
		}
		t = next
	}
	return in
}

// slowAt makes height h take extra (its successors move along) in round r,
// committed by the proposer of round r.
func slowAt(in *Input, h int64, r int32, extra int64) {
	for i := range in.Blocks {
		b := &in.Blocks[i]
		switch {
		case b.Height == h:
			b.Round, b.CommitTime = r, b.CommitTime+extra
			b.Proposer = fmt.Sprintf("A%d", (h+int64(r))%4+1)
		case b.Height > h:
			b.Time, b.CommitTime = b.Time+extra, b.CommitTime+extra
		}
	}
}

func blockAt(in Input, h int64) results.Block { return in.Blocks[h-1] }

func setVote(in *Input, h int64, node, flag string, off float64) {
	for i := range in.Precommits {
		if p := &in.Precommits[i]; p.Height == h && p.Node == node {
			p.Flag, p.OffsetMs = flag, off
		}
	}
}

// TestAutopsyRules checks each rule on evidence recorded for it, and that
// a healthy chain has no slow height.
func TestAutopsyRules(t *testing.T) {
	const s = int64(1e9)
	cases := []struct {
		name     string
		edit     func(in *Input)
		cause    string
		node     string
		evidence string
		wantSlow int
	}{
		{"healthy", func(in *Input) {}, "", "", "", 0},
		{"equivocation", func(in *Input) {
			// A twin of v2 signed conflicting votes at height 20; a later
			// block committed the evidence.
			slowAt(in, 20, 1, 3*s)
			in.Evidence = []results.Evidence{{Height: 23, Type: "DuplicateVoteEvidence", EvidenceHeight: 20, Validator: "A2"}}
		}, CauseEquivocation, "v2", "evidence of conflicting votes at this height by v2", 1},
		{"injected evidence is no equivocation", func(in *Input) {
			// The same evidence, forged and sent by the run (evidence = 1):
			// it says nothing about height 20, which stays unexplained.
			slowAt(in, 20, 1, 3*s)
			in.Evidence = []results.Evidence{{Height: 23, Type: "DuplicateVoteEvidence", EvidenceHeight: 20, Validator: "A2"}}
			in.Events = []results.Event{{At: blockAt(*in, 21).Time, Node: "v2", Kind: results.EventEvidence, Detail: EvidenceDetail(20, "v1")}}
		}, CauseUnexplained, "", "", 1},
		{"proposer killed", func(in *Input) {
			// Height 20's round-0 proposer is v1 (20 mod 4 = 0 → A1); it was killed before.
			slowAt(in, 20, 1, 3*s)
			in.Events = []results.Event{{At: blockAt(*in, 20).Time - 2*s, Node: "v1", Kind: results.EventKill}}
		}, CauseProposerAbsent, "v1", "v1 proposer of a failed round, kill -2.0 s", 1},
		{"proposer absent from the commit", func(in *Input) {
			slowAt(in, 21, 1, 3*s)
			setVote(in, 21, "v2", "absent", 0)
		}, CauseProposerAbsent, "v2", "precommit absent", 1},
		{"proposer absent from the commit because it lagged: lagging", func(in *Input) {
			// A far validator: it committed height 20 5 s after the others,
			// so its proposal of 21 came too late and its precommit missed
			// the commit.
			slowAt(in, 21, 1, 3*s)
			setVote(in, 21, "v2", "absent", 0)
			for i := range in.Adoption {
				if a := &in.Adoption[i]; a.Height == 20 && a.Node == "v2" {
					a.At += 5 * s
				}
			}
		}, CauseNodeLagging, "v2", "v2 proposer of a failed round, committed the previous height 5001 ms after the first node, precommit absent", 1},
		{"proposer restarted before: not down", func(in *Input) {
			slowAt(in, 20, 1, 3*s)
			at := blockAt(*in, 20).Time
			in.Events = []results.Event{{At: at - 9*s, Node: "v1", Kind: results.EventKill}, {At: at - 5*s, Node: "v1", Kind: results.EventStart}}
		}, CauseUnexplained, "", "", 1},
		{"proposer lagging", func(in *Input) {
			slowAt(in, 22, 1, 3*s)
			for i := range in.Adoption {
				if a := &in.Adoption[i]; a.Height == 21 && a.Node == "v3" {
					a.At += 800e6
				}
			}
		}, CauseNodeLagging, "v3", "committed the previous height 802 ms", 1},
		{"perturbation", func(in *Input) {
			slowAt(in, 23, 0, 2*s)
			at := blockAt(*in, 23).Time
			in.Events = []results.Event{{At: at - s, Node: "v2", Kind: results.EventPerturbBegin, Detail: "disconnect 1/1, down 5s"}}
		}, CausePerturbation, "v2", "v2 disconnect 1/1", 1},
		{"restart ended just before: catching up", func(in *Input) {
			slowAt(in, 23, 0, 2*s)
			at := blockAt(*in, 23).Time
			in.Events = []results.Event{{At: at - 410e6, Node: "v3", Kind: results.EventPerturbBegin, Detail: "restart 3/3"},
				{At: at - 400e6, Node: "v3", Kind: results.EventPerturbEnd, Detail: "restart 3/3"}}
		}, CausePerturbation, "v3", "v3 restart 3/3, ended 0.4 s before", 1},
		{"restart ended long before", func(in *Input) {
			slowAt(in, 23, 0, 2*s)
			at := blockAt(*in, 23).Time
			in.Events = []results.Event{{At: at - 10*s, Node: "v3", Kind: results.EventPerturbBegin, Detail: "restart 1/1"},
				{At: at - 10*s + 1e6, Node: "v3", Kind: results.EventPerturbEnd, Detail: "restart 1/1"}}
		}, CauseUnexplained, "", "", 1},
		{"votes late", func(in *Input) {
			slowAt(in, 24, 0, 2*s)
			setVote(in, 24, "v3", "commit", 2900)
			setVote(in, 24, "v4", "nil", 100)
		}, CauseVotesLate, "v3+v4", "precommits late, nil or absent: v3+v4", 1},
		{"votes late, from a far zone", func(in *Input) {
			slowAt(in, 24, 0, 2*s)
			setVote(in, 24, "v3", "commit", 2900)
			in.Run.Nodes = []results.Node{{Name: "v1", Zone: "near"}, {Name: "v2", Zone: "near"}, {Name: "v3", Zone: "far"}, {Name: "v4", Zone: "near"}}
		}, CauseVotesLate, "v3", "precommits late, nil or absent: v3 (zone far: v3)", 1},
		{"host contention", func(in *Input) {
			slowAt(in, 25, 0, 2*s)
			b := blockAt(*in, 25)
			in.Host = []results.HostSample{{Time: b.Time + s, Cores: 2, Busy: 1.96}}
			in.Resources = []results.Resource{{Time: b.Time + s, Node: "v2", CPU: 97}, {Time: b.Time + s, Node: "v1", CPU: 40}}
		}, CauseHostContention, "v2", "v2 CPU 97 % of a core, host busy 98 %", 1},
		{"mempool full", func(in *Input) {
			slowAt(in, 26, 0, 2*s)
			in.Mempool = []results.MempoolSample{{Height: 10, Node: "v1", Txs: 5000}, {Height: 26, Node: "v4", Txs: 4990}, {Height: 26, Node: "v1", Txs: 100}}
		}, CauseMempoolFull, "v4", "mempool of v4 4990 txs (capacity 5000)", 1},
		{"mempool full within the height, emptied by its commit", func(in *Input) {
			// The proposer's block took the whole mempool: the sample
			// after the commit is small, the scrape within the height
			// saw it full.
			slowAt(in, 26, 0, 2*s)
			b := blockAt(*in, 26)
			in.Mempool = []results.MempoolSample{{Height: 26, Node: "v3", Txs: 300}}
			in.Metrics = NewSeriesSet([]results.Metric{
				{Time: b.Time - 500e6, Node: "v3", Name: "cometbft_mempool_size", Value: 5000},
				{Time: b.Time + s, Node: "v3", Name: "cometbft_mempool_size", Value: 4800},
				{Time: b.CommitTime + 500e6, Node: "v3", Name: "cometbft_mempool_size", Value: 5000}})
		}, CauseMempoolFull, "v3", "mempool of v3 4800 txs (capacity 5000)", 1},
		{"mempool full before and after the height only: not full", func(in *Input) {
			slowAt(in, 26, 0, 2*s)
			b := blockAt(*in, 26)
			in.Metrics = NewSeriesSet([]results.Metric{
				{Time: b.Time - 500e6, Node: "v3", Name: "cometbft_mempool_size", Value: 5000},
				{Time: b.Time + s, Node: "v3", Name: "cometbft_mempool_size", Value: 1000},
				{Time: b.CommitTime + 500e6, Node: "v3", Name: "cometbft_mempool_size", Value: 5000}})
		}, CauseUnexplained, "", "", 1},
		{"mempool at the run's largest, far from full: not full", func(in *Input) {
			// A slow height leaves its transactions waiting: the run's
			// largest mempool, but a small one.
			slowAt(in, 26, 0, 2*s)
			in.Mempool = []results.MempoolSample{{Height: 10, Node: "v1", Txs: 150}, {Height: 26, Node: "v4", Txs: 182}}
		}, CauseUnexplained, "", "", 1},
		{"mempool full at a smaller recorded capacity", func(in *Input) {
			slowAt(in, 26, 0, 2*s)
			in.Run.Nodes = []results.Node{{Name: "v2", MempoolCapacity: 1000}}
			in.Mempool = []results.MempoolSample{{Height: 26, Node: "v2", Txs: 990}, {Height: 26, Node: "v4", Txs: 990}}
		}, CauseMempoolFull, "v2", "mempool of v2 990 txs (capacity 1000)", 1},
		{"mempool full, with its big blocks' processing: the mempool", func(in *Input) {
			// An overload: the full mempool's blocks take long to
			// execute, which is its effect, named in the evidence.
			slowAt(in, 27, 0, 2*s)
			b := blockAt(*in, 27)
			in.Metrics = execSeries(in.Blocks[0].Time, b, 40, 1500)
			in.Mempool = []results.MempoolSample{{Height: 27, Node: "v2", Txs: 5000}}
		}, CauseMempoolFull, "v2", "mempool of v2 5000 txs (capacity 5000); block processing 1500 ms on v1 (run median 58 ms)", 1},
		{"execution", func(in *Input) {
			slowAt(in, 27, 0, 2*s)
			b := blockAt(*in, 27)
			in.Metrics = execSeries(in.Blocks[0].Time, b, 40, 1500)
		}, CauseExecution, "v1", "block processing 1500 ms on v1 (run median 58 ms)", 1},
		{"execution slower than usual, too little to explain the height", func(in *Input) {
			// 3 × the median, but 0.1 s of a height 2 s longer than usual.
			slowAt(in, 27, 0, 2*s)
			b := blockAt(*in, 27)
			in.Metrics = execSeries(in.Blocks[0].Time, b, 40, 200)
		}, CauseUnexplained, "", "", 1},
		{"gc pause", func(in *Input) {
			slowAt(in, 28, 0, 2*s)
			b := blockAt(*in, 28)
			in.Metrics = NewSeriesSet([]results.Metric{
				{Time: b.Time - 500e6, Node: "v3", Name: "go_gc_duration_seconds_sum", Value: 1.0},
				{Time: b.CommitTime + 500e6, Node: "v3", Name: "go_gc_duration_seconds_sum", Value: 1.3}})
		}, CauseGCPause, "v3", "GC paused v3 300 ms", 1},
		{"proposal late", func(in *Input) {
			// Height 30's proposer, v3 ((30 mod 4)+1), proposed 2 s late (a
			// slow PrepareProposal): every precommit moved with it.
			slowAt(in, 30, 0, 2*s)
			for _, v := range []string{"v1", "v2", "v3", "v4"} {
				setVote(in, 30, v, "commit", 2900)
			}
			in.Resources = []results.Resource{{Time: blockAt(*in, 30).Time + s, Node: "v3", CPU: 35}}
		}, CauseProposalLate, "v3", "first precommit 2900 ms after the header time (run median 900): v3's proposal came late; its CPU 35 % of a core", 1},
		{"proposal late on a busy host: the proposer, with the host", func(in *Input) {
			slowAt(in, 30, 0, 2*s)
			for _, v := range []string{"v1", "v2", "v3", "v4"} {
				setVote(in, 30, v, "commit", 2900)
			}
			in.Host = []results.HostSample{{Time: blockAt(*in, 30).Time + s, Cores: 2, Busy: 1.94}}
		}, CauseProposalLate, "v3", "v3's proposal came late; the host busy 97 % of its cores", 1},
		{"proposal late from a full mempool: the mempool", func(in *Input) {
			slowAt(in, 30, 0, 2*s)
			for _, v := range []string{"v1", "v2", "v3", "v4"} {
				setVote(in, 30, v, "commit", 2900)
			}
			in.Mempool = []results.MempoolSample{{Height: 10, Node: "v1", Txs: 5000}, {Height: 30, Node: "v3", Txs: 4990}}
		}, CauseMempoolFull, "v3", "mempool of v3 4990 txs", 1},
		{"first precommit late by less than half the extra time", func(in *Input) {
			slowAt(in, 30, 0, 2*s)
			for _, v := range []string{"v1", "v2", "v3", "v4"} {
				setVote(in, 30, v, "commit", 1500)
			}
		}, CauseUnexplained, "", "", 1},
		{"late first precommit in a later round is no late proposal", func(in *Input) {
			slowAt(in, 31, 1, 3*s)
			for _, v := range []string{"v1", "v2", "v3", "v4"} {
				setVote(in, 31, v, "commit", 3900)
			}
		}, CauseUnexplained, "", "", 1},
		{"unexplained", func(in *Input) { slowAt(in, 29, 0, 2*s) }, CauseUnexplained, "", "round 0, interval 3006 ms (median 1003)", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := autopsyChain()
			c.edit(&in)
			vs := Autopsy(in)
			if len(vs) != c.wantSlow {
				t.Fatalf("%d slow heights, want %d: %+v", len(vs), c.wantSlow, vs)
			}
			if c.wantSlow == 0 {
				return
			}
			v := vs[0]
			if v.Cause != c.cause || v.Node != c.node || !strings.Contains(v.Evidence, c.evidence) {
				t.Errorf("verdict %s on %q (%s), want %s on %q with %q", v.Cause, v.Node, v.Evidence, c.cause, c.node, c.evidence)
			}
		})
	}
}

// execSeries gives node v1 a processing-time histogram of 40 blocks at
// base ms, then block b at slow ms, and v2 the base throughout.
func execSeries(t0 int64, b results.Block, n int, slow float64) *SeriesSet {
	var rows []results.Metric
	add := func(node string, at int64, sum, cnt float64) {
		rows = append(rows, results.Metric{Time: at, Node: node, Name: "cometbft_state_block_processing_time_sum", Labels: "chain_id=c", Value: sum},
			results.Metric{Time: at, Node: node, Name: "cometbft_state_block_processing_time_count", Labels: "chain_id=c", Value: cnt})
	}
	for _, node := range []string{"v1", "v2"} {
		add(node, t0, 0, 0)
		add(node, b.Time-100e6, 40*float64(n), float64(n))
		last := slow
		if node == "v2" {
			last = 40
		}
		add(node, b.CommitTime+100e6, 40*float64(n)+last, float64(n+1))
		add(node, b.CommitTime+60e9, 40*float64(2*n)+last, float64(2*n+1))
	}
	return NewSeriesSet(rows)
}

// TestSlowCut checks the threshold on known intervals: the factor
// dominates when the intervals hardly vary, the MAD when they vary.
func TestSlowCut(t *testing.T) {
	flat := make([]float64, 20)
	wide := make([]float64, 20)
	for i := range flat {
		flat[i] = 1000 + float64(i%2)     // MAD 0.5: median+6σ ≈ 1005, 1.5×median wins
		wide[i] = 1000 + float64(i%2)*400 // median 1200, MAD 200: 1200 + 6×296.5 = 2979
	}
	for _, c := range []struct {
		name string
		iv   []float64
		cut  float64
	}{{"flat", flat, 1500.75}, {"wide", wide, 1200 + 6*1.4826*200}, {"few", flat[:5], 0}} {
		cut, _ := slowCut(c.iv)
		if diff := cut - c.cut; diff > 1e-6 || diff < -1e-6 {
			t.Errorf("%s: cut %.3f, want %.3f", c.name, cut, c.cut)
		}
	}
}

// TestProposerCycle: a rotation learned from blocks, or nil when blocks
// disagree.
func TestProposerCycle(t *testing.T) {
	in := autopsyChain()
	if got := proposerCycle(in.Blocks, 4); strings.Join(got, ",") != "A1,A2,A3,A4" {
		t.Errorf("cycle %v", got)
	}
	in.Blocks[5].Proposer = "A9"
	if got := proposerCycle(in.Blocks, 4); got != nil {
		t.Errorf("inconsistent blocks: cycle %v, want nil", got)
	}
}

// withTxs gives every height of in 10 transactions sent in the second
// before it, on time (sent.csv and txs.csv), to node v1.
func withTxs(in *Input) {
	in.Run.Target, in.Run.Load.LateThreshold = "v1", 0.5
	seq := uint64(0)
	for _, b := range in.Blocks {
		for k := range int64(10) {
			sent := b.Time - 900e6 + k*80e6
			in.Sent = append(in.Sent, results.Sent{Seq: seq, Intended: sent, Actual: sent, Size: 100})
			in.Txs = append(in.Txs, results.Tx{Seq: seq, Sent: sent, Height: b.Height, Index: int(k), BlockTime: b.Time, CommitTime: b.CommitTime})
			seq++
		}
	}
}

// holdTxs makes height h's transactions sent wait before them: sent by
// ms earlier (their latency grows), lag ms behind their schedule.
func holdTxs(in *Input, h int64, ms, lag int64) {
	for i := range in.Txs {
		if t := &in.Txs[i]; t.Height == h {
			t.Sent -= ms * 1e6
			s := &in.Sent[i]
			s.Actual, s.Intended = t.Sent, t.Sent-lag*1e6
		}
	}
}

// TestAutopsyLatency checks the heights slow by their transactions'
// latency alone and the rules tried on them.
func TestAutopsyLatency(t *testing.T) {
	const s, ms = int64(1e9), int64(1e6)
	cases := []struct {
		name     string
		edit     func(in *Input)
		height   int64
		cause    string
		node     string
		evidence string
	}{
		{"healthy: none", func(in *Input) {}, 0, "", "", ""},
		{"held on the way, the generator behind", func(in *Input) {
			holdTxs(in, 20, 3000, 2000)
		}, 20, CauseLoadPath, "v1", "its transactions' block latency 4546 ms (median 1543); on the way to v1 while its transactions waited: 10 of 50 sends late, up to 2000 ms behind schedule"},
		{"held, the generator behind by far less than the wait: unexplained", func(in *Input) {
			holdTxs(in, 20, 3000, 600)
		}, 20, CauseUnexplained, "", "its transactions' block latency 4546 ms"},
		{"held, refused on the way", func(in *Input) {
			holdTxs(in, 20, 3000, 0)
			in.Replies = []results.Reply{{Seq: 195, At: blockAt(*in, 20).Time - 2*s, Code: -32603, Message: "mempool is full"}}
		}, 20, CauseLoadPath, "v1", "1 replies refused or rejected transactions"},
		{"held, nothing on the way: unexplained", func(in *Input) {
			holdTxs(in, 20, 3000, 0)
		}, 20, CauseUnexplained, "", "its transactions' block latency 4546 ms"},
		{"held behind a full mempool", func(in *Input) {
			holdTxs(in, 20, 3000, 2000)
			in.Mempool = []results.MempoolSample{{Height: 20, Node: "v2", Txs: 4900}}
		}, 20, CauseMempoolFull, "v2", "mempool of v2 4900 txs"},
		{"after a slow height: its echo, not slow", func(in *Input) {
			// Height 20's transactions waited through height 19.
			in.Sent, in.Txs = nil, nil
			slowAt(in, 19, 1, 3*s)
			withTxs(in)
			holdTxs(in, 20, 3000, 2000)
		}, 19, CauseUnexplained, "", "round 1"},
		// The height the load ended within holds only the transactions
		// sent early in its span (the generator stopped mid-height): its
		// mean is biased. Before the span check, height 40 here (half its
		// transactions, an interval of 1,153 ms against a median of
		// 1,003) was unexplained, its latency 928 ms against a median of
		// 528: the artefact at the last height of QA runs (issue 48).
		{"steady to the end: none", func(in *Input) { steadyLoad(in, 20, 0) }, 0, "", "", ""},
		{"the load ends halfway through the last height: none", func(in *Input) {
			last := &in.Blocks[len(in.Blocks)-1]
			last.CommitTime += 150 * ms
			steadyLoad(in, 20, last.Time+450*ms)
		}, 0, "", "", ""},
		{"the load ends halfway through height 38: none", func(in *Input) {
			steadyLoad(in, 20, blockAt(*in, 38).Time+450*ms)
		}, 0, "", "", ""},
		{"the load ends within the last height, one held in the middle: found", func(in *Input) {
			last := &in.Blocks[len(in.Blocks)-1]
			last.CommitTime += 150 * ms
			steadyLoad(in, 20, last.Time+450*ms)
			holdTxs(in, 20, 1500, 1200)
		}, 20, CauseLoadPath, "v1", "latency 2031 ms (median 528)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := autopsyChain()
			withTxs(&in)
			c.edit(&in)
			vs := Autopsy(in)
			if c.height == 0 {
				if len(vs) != 0 {
					t.Fatalf("slow heights %+v, want none", vs)
				}
				return
			}
			if len(vs) != 1 {
				t.Fatalf("%d slow heights, want 1 (%d): %+v", len(vs), c.height, vs)
			}
			v := vs[0]
			if v.Height != c.height || v.Cause != c.cause || v.Node != c.node || !strings.Contains(v.Evidence, c.evidence) {
				t.Errorf("height %d: %s on %q (%s), want height %d: %s on %q with %q", v.Height, v.Cause, v.Node, v.Evidence, c.height, c.cause, c.node, c.evidence)
			}
		})
	}
}

// steadyLoad gives autopsyChain's heights the transactions of a load of
// perHeight a second to v1 that ends at end (Unix ns; 0: after the last
// height): height H takes those sent in [T(H), T(H) + 1 s), its proposal
// made just before its commit, so their mean block latency is about
// 1,000 − 475 = 525 ms.
func steadyLoad(in *Input, perHeight int64, end int64) {
	in.Run.Target, in.Run.Load.LateThreshold = "v1", 0.5
	in.Sent, in.Txs = nil, nil
	seq := uint64(0)
	for _, b := range in.Blocks {
		for k := range perHeight {
			sent := b.Time + k*int64(1e9)/perHeight
			if end != 0 && sent > end {
				break
			}
			in.Sent = append(in.Sent, results.Sent{Seq: seq, Intended: sent, Actual: sent, Size: 100})
			in.Txs = append(in.Txs, results.Tx{Seq: seq, Sent: sent, Height: b.Height, Index: int(k), BlockTime: b.Time, CommitTime: b.CommitTime})
			seq++
		}
	}
}
