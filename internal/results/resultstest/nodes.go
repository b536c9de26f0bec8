package resultstest

import (
	"math"
	"slices"
	"strconv"

	"github.com/cometlab/cometlab/internal/results"
)

const (
	ms  = int64(1e6)
	sec = int64(1e9)
	mib = 1 << 20
)

// Nodes is a model of a testnet's nodes following a chain: each node
// commits every block a few milliseconds after its BFT commit time, its
// mempool fills with the next blocks' transactions and empties when it
// commits them, and its CPU, memory and disk grow with the load.
type Nodes struct {
	Names     []string
	Namespace string // metric namespace; "" means cometbft
	ChainID   string
	From, To  int64 // first and last sample, Unix ns
	Step      int64 // sampling (scrape) interval, ns
	LoadStart int64 // Unix ns
	LoadEnd   int64
	TxSize    int
	// Blocks is the chain: ascending heights with header and commit times
	// (the last block, without a commit time, is never committed).
	Blocks []results.Block
	// Stop gives nodes that die at a time (Unix ns): no record of them
	// from then on.
	Stop map[string]int64
	// Down gives nodes that are down in windows [from, to) (Unix ns): no
	// commit and no sample in the window; the blocks committed meanwhile
	// the node commits after it at 50 blocks/s (block sync), until it is
	// back at the tip.
	Down map[string][][2]int64
	// NoMetrics lists nodes without a metrics endpoint (no metrics.csv
	// rows; resources and adoption as usual).
	NoMetrics []string
	// Leftover gives nodes whose mempool keeps that many transactions
	// from the load end on.
	Leftover map[string]int
	// Rejected gives nodes whose mempool_rejected_txs counter grows by
	// that much, evenly over the load.
	Rejected map[string]int
	// Skew gives node i's place in the model's spreads (commit delay,
	// CPU, memory, disk, block processing time): 2 ms later commits, 1 %
	// more CPU, 3 MiB more memory per unit; nil means i, so each node is
	// a little slower than the one before.
	Skew []float64
	// MaxPeers caps each node's peers (CometBFT's peer limits); 0 means
	// every other node (a full mesh).
	MaxPeers int
}

// skew returns node i's place in the spreads (see Nodes.Skew).
func (n *Nodes) skew(i int) float64 {
	if n.Skew != nil {
		return n.Skew[i]
	}
	return float64(i)
}

// peerCount returns node i's peers once connected: every other node, or,
// under MaxPeers, between three quarters of it and all of it.
func (n *Nodes) peerCount(i int) int {
	all := len(n.Names) - 1
	if n.MaxPeers <= 0 || n.MaxPeers >= all {
		return all
	}
	return n.MaxPeers - int(jitter(int64(i), 300)*float64(n.MaxPeers)/4)
}

// jitter returns a deterministic pseudo-random value in [0, 1) for (a, b).
func jitter(a, b int64) float64 {
	x := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	return float64(x>>11) / (1 << 53)
}

// commitAt returns when node i commits block k (local clock): 4 ms + 2 ms
// per node index + up to 6 ms after its commit time; 0 when it never does.
func (n *Nodes) commitAt(i, k int) int64 {
	b := &n.Blocks[k]
	if b.CommitTime == 0 {
		return 0
	}
	t := b.CommitTime + 4*ms + int64(n.skew(i)*2*float64(ms)) + int64(jitter(b.Height, int64(i))*6*float64(ms))
	if stop, ok := n.Stop[n.Names[i]]; ok && t >= stop {
		return 0
	}
	for _, w := range n.Down[n.Names[i]] {
		if t >= w[0] {
			// Block sync from w[1] at SyncRate: monotone in t, and t
			// itself once the node is back at the tip.
			t = max(t, w[1]+(t-w[0])/SyncRate)
		}
	}
	return t
}

// SyncRate is how many times faster than the chain grows a node that was
// down commits the blocks it missed: 50 blocks/s on a 1-block/s chain.
const SyncRate = 50

// down reports whether node is down at t.
func (n *Nodes) down(node string, t int64) bool {
	for _, w := range n.Down[node] {
		if t >= w[0] && t < w[1] {
			return true
		}
	}
	return false
}

// Adoption returns adoption.csv's rows: every node's commit of every block
// it committed, by height then node.
func (n *Nodes) Adoption() []results.Adoption {
	var out []results.Adoption
	for k := range n.Blocks {
		for i, name := range n.Names {
			if t := n.commitAt(i, k); t != 0 {
				out = append(out, results.Adoption{Height: n.Blocks[k].Height, Node: name, At: t})
			}
		}
	}
	return out
}

// stepNames are CometBFT's consensus steps, as the step label gives them.
func stepNames() []string {
	return []string{"NewHeight", "NewRound", "Propose", "Prevote", "PrevoteWait", "Precommit", "PrecommitWait", "Commit"}
}

// stepTimes returns the seconds block k spent in each step of stepNames
// and how many times it entered it.
func (n *Nodes) stepTimes(k int) (sum, count [8]float64) {
	b := &n.Blocks[k]
	interval := 1.0
	if k > 0 {
		interval = float64(b.Time-n.Blocks[k-1].Time) / float64(sec)
	}
	r := float64(b.Round)
	// A step's duration is labelled with that step (MarkStep is given
	// the step being left): NewHeight holds the timeout_commit wait, the
	// rest of the interval.
	sum = [8]float64{0, 0.001 * r, 0.06 + 0.05*r, 0.012 * (r + 1), 0.3 * r, 0.015 * (r + 1), 0.2 * r, 0.004}
	used := 0.0
	for _, s := range sum {
		used += s
	}
	sum[0] = max(0.001, interval-used)
	count = [8]float64{1, r, r + 1, r + 1, r, r + 1, r, 1}
	return sum, count
}

// nodeState is what one node exposes at one sample.
type nodeState struct {
	committed  int // blocks committed
	height     int64
	totalTxs   float64
	mempool    float64
	rounds     float64
	peers      float64
	steps      [2][8]float64 // cumulative sum, count
	roundSum   float64
	roundCount float64
	procSum    float64
	cpuPct     float64
	cpuSec     float64
	rss        float64
	rejected   float64
	sentBytes  float64
	blockSize  float64 // the last committed block's, whole: its transactions and 700 bytes
}

// Generate calls metric for every metrics.csv row and resource for every
// resources.csv row, in time order (either may be nil).
func (n *Nodes) Generate(metric func(*results.Metric) error, resource func(*results.Resource) error) error {
	ns := n.Namespace
	if ns == "" {
		ns = "cometbft"
	}
	chain := "chain_id=" + n.ChainID
	N := len(n.Names)
	st := make([]nodeState, N)
	commits := make([][]int64, N)
	for i := range N {
		for k := range n.Blocks {
			if t := n.commitAt(i, k); t != 0 {
				commits[i] = append(commits[i], t)
			}
		}
	}
	var cum [][2][8]float64 // per committed block count: cumulative step sums and counts
	var cumTxs, cumRound, cumRoundN, cumProc []float64
	cum = append(cum, [2][8]float64{})
	cumTxs, cumRound, cumRoundN, cumProc = append(cumTxs, 0), append(cumRound, 0), append(cumRoundN, 0), append(cumProc, 0)
	for k := range n.Blocks {
		s, c := n.stepTimes(k)
		next := cum[k]
		for j := range 8 {
			next[0][j] += s[j]
			next[1][j] += c[j]
		}
		cum = append(cum, next)
		b := &n.Blocks[k]
		cumTxs = append(cumTxs, cumTxs[k]+float64(b.Txs))
		var iv float64 = 1
		if k > 0 {
			iv = float64(b.Time-n.Blocks[k-1].Time) / float64(sec)
		}
		cumRound = append(cumRound, cumRound[k]+iv)
		cumRoundN = append(cumRoundN, cumRoundN[k]+float64(b.Round)+1)
		cumProc = append(cumProc, cumProc[k]+0.8+0.004*float64(b.Txs))
	}
	var load1 float64
	decay := 1 - math.Exp(-float64(n.Step)/float64(60*sec))
	m := results.Metric{}
	emit := func(t int64, node, name, labels string, v float64) error {
		m.Time, m.Node, m.Name, m.Labels, m.Value = t, node, name, labels, v
		return metric(&m)
	}
	for t0 := n.From; t0 <= n.To; t0 += n.Step {
		var cpuTotal float64
		for i, name := range n.Names {
			t := t0 + int64(i)*ms
			if stop, ok := n.Stop[name]; ok && t >= stop || n.down(name, t) {
				continue
			}
			s := &st[i]
			n.advance(i, t, s, commits[i])
			s.totalTxs = cumTxs[s.committed]
			if c := s.committed; c > 0 && c <= len(n.Blocks) {
				s.blockSize = float64(n.Blocks[c-1].Bytes) + 700
			}
			s.steps = cum[s.committed]
			if n.Skew != nil { // a slower node's steps take longer: 2 % per unit of skew
				for j := range 8 {
					s.steps[0][j] *= 1 + 0.02*n.skew(i)
				}
			}
			s.roundSum, s.roundCount, s.procSum = cumRound[s.committed], cumRoundN[s.committed], cumProc[s.committed]*(1+0.15*n.skew(i))
			cpuTotal += s.cpuPct
			if metric != nil && !slices.Contains(n.NoMetrics, name) {
				if err := n.emitNode(emit, t, name, ns, chain, s, n.peerCount(i)); err != nil {
					return err
				}
			}
			if resource != nil {
				data := 12*mib + n.skew(i)*mib*0.7 + s.totalTxs*float64(n.TxSize+700)*(1+0.04*n.skew(i))
				r := results.Resource{Time: t + 3*ms, Node: name, CPU: math.Round(s.cpuPct*100) / 100, RSS: int64(s.rss) + 6*mib,
					OpenFiles: 40 + 2*int(s.peers), DataBytes: int64(data), Load1: math.Round(load1*100) / 100}
				if err := resource(&r); err != nil {
					return err
				}
			}
		}
		load1 += (cpuTotal/100 + 0.3 - load1) * decay
	}
	return nil
}

// advance brings node i's state to time t.
func (n *Nodes) advance(i int, t int64, s *nodeState, commits []int64) {
	c, _ := slices.BinarySearch(commits, t+1)
	s.committed = c
	if c > 0 {
		s.height = n.Blocks[c-1].Height + 1
	} else if len(n.Blocks) > 0 {
		s.height = n.Blocks[0].Height
	}
	// Transactions of blocks not yet committed arrive evenly between the
	// previous block's time and their own.
	var pool float64
	for k := c; k < len(n.Blocks); k++ {
		b := &n.Blocks[k]
		prev := b.Time - sec
		if k > 0 {
			prev = n.Blocks[k-1].Time
		}
		if t <= prev {
			break
		}
		f := min(1, float64(t-prev)/float64(max(1, b.Time-prev)))
		pool += float64(b.Txs) * f
	}
	if i > 0 {
		pool *= 0.97 // gossip lags a little
	}
	if left := n.Leftover[n.Names[i]]; left > 0 && t >= n.LoadEnd {
		pool += float64(left)
	}
	s.mempool = math.Round(pool)
	s.rounds = 0
	if c < len(n.Blocks) && n.Blocks[c].Round > 0 && c > 0 && t-commits[c-1] > 600*ms {
		s.rounds = float64(n.Blocks[c].Round)
	}
	s.peers = float64(n.peerCount(i))
	if d := t - n.From; d < 2*sec {
		s.peers = math.Min(s.peers, float64(d/(500*ms)))
	}
	loaded := t >= n.LoadStart && t <= n.LoadEnd+2*sec
	s.cpuPct = 3 + n.skew(i) + 4*jitter(t/n.Step, int64(i)+100)
	if loaded {
		s.cpuPct += 22 + 0.05*pool
	}
	s.cpuSec += s.cpuPct / 100 * float64(n.Step) / float64(sec)
	s.rss = float64(70*mib) + n.skew(i)*3*mib + math.Min(s.totalTxs, 60_000)*1536 + 4*mib*jitter(t/(10*n.Step), int64(i)+200)
	if rej := n.Rejected[n.Names[i]]; rej > 0 && n.LoadEnd > n.LoadStart {
		f := math.Min(1, math.Max(0, float64(t-n.LoadStart)/float64(n.LoadEnd-n.LoadStart)))
		s.rejected = math.Floor(float64(rej) * f)
	}
	s.sentBytes += float64(n.Step) / float64(sec) * (2000 + pool*float64(n.TxSize)/10)
}

// emitNode writes node's metrics rows at time t: the kept series and a few
// the analysis drops.
func (n *Nodes) emitNode(emit func(int64, string, string, string, float64) error, t int64, node, ns, chain string, s *nodeState, peers int) error {
	type row struct {
		name, labels string
		v            float64
	}
	rows := []row{
		{ns + "_consensus_height", chain, float64(s.height)},
		{ns + "_consensus_latest_block_height", chain, float64(s.height - 1)},
		{ns + "_consensus_rounds", chain, s.rounds},
		{ns + "_consensus_total_txs", chain, s.totalTxs},
		{ns + "_consensus_block_size_bytes", chain, s.blockSize},
		{ns + "_consensus_round_duration_seconds_sum", chain, s.roundSum},
		{ns + "_consensus_round_duration_seconds_count", chain, s.roundCount},
		{ns + "_state_block_processing_time_sum", chain, s.procSum},
		{ns + "_state_block_processing_time_count", chain, float64(s.committed)},
		// The app's Commit, 4 ms a height, and CheckTx, 0.2 ms a transaction.
		{ns + "_abci_connection_method_timing_seconds_sum", chain + ";method=commit;type=sync", 0.004 * float64(s.committed)},
		{ns + "_abci_connection_method_timing_seconds_count", chain + ";method=commit;type=sync", float64(s.committed)},
		{ns + "_abci_connection_method_timing_seconds_sum", chain + ";method=check_tx;type=sync", 0.0002 * s.totalTxs},
		{ns + "_abci_connection_method_timing_seconds_count", chain + ";method=check_tx;type=sync", s.totalTxs},
		{ns + "_mempool_size", chain, s.mempool},
		{ns + "_mempool_size_bytes", chain, s.mempool * float64(n.TxSize)},
		{ns + "_mempool_failed_txs", chain, 0},
		{ns + "_mempool_rejected_txs", chain, s.rejected},
		{ns + "_mempool_evicted_txs", chain, 0},
		{ns + "_p2p_peers", chain, s.peers},
		{ns + "_blocksync_syncing", chain, 0},
		{ns + "_state_block_store_base_height", chain, 1}, // v1.0's storage series: nothing pruned
		{ns + "_store_block_store_access_duration_seconds_sum", chain + ";method=load_block", 0.0004 * float64(s.committed)},
		{ns + "_store_block_store_access_duration_seconds_count", chain + ";method=load_block", 2 * float64(s.committed)},
		{ns + "_state_store_access_duration_seconds_sum", chain + ";method=save", 0.0009 * float64(s.committed)},
		{ns + "_state_store_access_duration_seconds_count", chain + ";method=save", float64(s.committed)},
		// v1.0's proposal timestamp difference: one timely proposal per
		// height, received 1.02 s after its timestamp (the block's time).
		{ns + "_consensus_proposal_timestamp_difference_sum", chain + ";is_timely=true", 1.02 * float64(s.committed)},
		{ns + "_consensus_proposal_timestamp_difference_count", chain + ";is_timely=true", float64(s.committed)},
		{"process_resident_memory_bytes", "", s.rss},
		{"process_cpu_seconds_total", "", s.cpuSec},
		{"go_goroutines", "", 40 + 12*s.peers},
	}
	for _, r := range rows {
		if err := emit(t, node, r.name, r.labels, r.v); err != nil {
			return err
		}
	}
	for j, step := range stepNames() {
		l := chain + ";step=" + step
		if err := emit(t, node, ns+"_consensus_step_duration_seconds_sum", l, s.steps[0][j]); err != nil {
			return err
		}
		if err := emit(t, node, ns+"_consensus_step_duration_seconds_count", l, s.steps[1][j]); err != nil {
			return err
		}
	}
	for p := range peers {
		l := "chID=0x30;" + chain + ";peer_id=" + strconv.Itoa(p)
		if err := emit(t, node, ns+"_p2p_peer_send_bytes_total", l, s.sentBytes/float64(peers)); err != nil {
			return err
		}
	}
	// The same bytes by message type, as every line counts them too.
	for _, m := range []struct {
		typ   string
		share float64
	}{{"consensus_BlockPart", 0.55}, {"consensus_Vote", 0.2}, {"mempool_Txs", 0.25}} {
		if err := emit(t, node, ns+"_p2p_message_send_bytes_total", chain+";message_type="+m.typ, s.sentBytes*m.share); err != nil {
			return err
		}
	}
	return nil
}
