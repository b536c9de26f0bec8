package sentinel

import (
	"math"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// PaceConfig sets the pacing controller (see Pacer).
type PaceConfig struct {
	// Target is the most txs the controller lets the node's mempool hold:
	// above it and growing, the rate backs off. Keep it under the node's
	// mempool.size, by about what arrives in one poll interval.
	Target int64
	// Blocks is the working target in blocks of txs: while the commit rate
	// is measured the mempool is kept under Blocks × the txs per block
	// (commit rate × block interval), and Target caps that.
	Blocks float64
	// Min and Max bound the rate (tx/s); Initial is where it starts.
	Min, Max, Initial float64
	// Increase is the additive increase, tx/s per second, while the
	// mempool is under the working target and the rate binds.
	Increase float64
	// Decrease is the multiplicative factor (0 < Decrease < 1) applied to
	// the measured commit rate on a backoff.
	Decrease float64
	// Alpha is the weight (0 < Alpha ≤ 1) of the latest block window in the
	// moving averages of the commit rate and the block interval.
	Alpha float64
	// Cooldown is the least time between two backoffs (and between two
	// doublings in slow start), so that a backoff can show before the next.
	Cooldown time.Duration
	// Window paces by the mempool alone: the rate stays at Max and the
	// sentinel's gate (Sentinel.gated) keeps the node's mempool, as last
	// polled, plus what was forwarded since, at Target — a window of
	// Target txs, refilled as fast as blocks empty the mempool, as a flood
	// at the node keeps it full. The commit rate and block interval are
	// still estimated (CommitRate, BlockInterval); the AIMD rules are off.
	Window bool
}

// DefaultPaceConfig suits the default testnet (mempool.size 5,000, blocks
// every ~1–3 s, ~1,450 tx/s saturation): the mempool may hold up to 4,750
// txs (95 %), two blocks' worth below that; a backoff goes to 95 % of the
// commit rate, and the rate then climbs 100 tx/s per second. It starts at
// 1,000 tx/s: from 200, the first seconds' slow start held 4 % of a
// 600 tx/s load in the queue for up to half a second, which is the p99.
//
// kvstore's blocks take the whole mempool (the block size limit, 21 MB,
// is far above 5,000 1-KB txs), so the node's throughput rises with the
// size of its blocks — the fixed cost of a height (timeout_commit, the
// consensus rounds) is shared by more txs — and is highest when the mempool
// is nearly full at each proposal: that is what a flood directly at the node
// gets, and what the pacer must match. It must not fill the mempool,
// though: near full, CometBFT acknowledges a tx and drops it all the same
// when a concurrent one takes the last place, so the sentinel also holds
// its sends at Target (Sentinel.gated).
func DefaultPaceConfig() PaceConfig {
	return PaceConfig{Target: results.DefaultMempoolSize * 95 / 100, Blocks: 2, Min: 10, Max: 100_000, Initial: 1000,
		Increase: 100, Decrease: 0.95, Alpha: 0.3, Cooldown: time.Second}
}

// Observation is what the sentinel sees of the node at one moment.
type Observation struct {
	At      time.Duration // since the sentinel started
	Mempool int64         // num_unconfirmed_txs
	Height  int64         // latest committed height
	// Forwarded counts the txs the node took into its mempool so far
	// (cumulative; rejected ones excluded).
	Forwarded int64
	// Full counts the node's "mempool is full" replies so far (cumulative):
	// the sentinel queues those txs again.
	Full int64
}

// Pacer is the forwarding-rate controller: additive increase, multiplicative
// decrease (AIMD) towards a mempool target, driven by a commit rate and a
// block interval averaged over several blocks. It is a pure function of its
// observations.
//
// Estimates. A block window runs from one observation at which the height
// rose to the next. Over each it measures the commit rate
// (Δforwarded − Δmempool)/Δt — the txs that left the mempool per second — and
// the block interval Δt/Δheight, and keeps c and I, their exponentially
// weighted moving averages (weight Alpha for the newest window). The working
// target is T = min(Target, Blocks × c × I): about two blocks of txs, enough
// for every proposal to find a full block's worth queued (until c is
// measured, T = Target). The trough is the mempool at the first observation
// after a height rise: what the last block left.
//
// Rules, for each observation (s, the rate sent since the previous one):
//
//	backoff, at most once per Cooldown, when the node said "mempool is
//	full" (Full rose), or the mempool is over Target and grew since the
//	previous observation, or — sustained growth — the trough is over T and
//	above the previous trough (blocks no longer take what arrives):
//	                                  rate ← max(Min, Decrease × min(rate, c))
//	                                  (the first, ending slow start: c is
//	                                  lagging the doublings, so max(c, rate/2))
//	mempool ≥ T, or rate ≥ ceiling:   rate unchanged
//	slow start (until the first backoff), once per Cooldown:
//	                                  rate ← min(2 × rate, ceiling)
//	after that:                       rate ← min(rate + Increase × Δt, ceiling)
//
// where ceiling = min(Max, max(Initial, 2 × s)): the rate grows only while it
// binds, so an idle spell does not leave it far above what the node was
// shown. A mempool swelling within one block (each proposal takes it all)
// is not a backoff: only a full mempool, one over Target, or a backlog that
// outlives blocks is. The backoff goes to a fraction of the commit rate
// averaged over several blocks, not of one noisy window, so the rate stays
// close to what the node commits and the mempool stays nearly full.
//
// With Window the rules above are off and the rate stays at Max: the
// sentinel's gate alone paces, holding the mempool at Target (see Window).
type Pacer struct {
	cfg       PaceConfig
	rate      float64
	slowStart bool
	last      Observation // the previous observation
	block     Observation // the observation at the last height rise
	seen      bool
	rose      bool // the height has risen once: block is a window's start
	trough    int64
	hasTrough bool
	lastDec   time.Duration
	lastGrow  time.Duration
	commit    float64 // c (tx/s); 0 until measured
	interval  float64 // I (s); 0 until measured
}

// NewPacer returns a controller at cfg.Initial (at cfg.Max with Window).
func NewPacer(cfg PaceConfig) *Pacer {
	r := clamp(cfg.Initial, cfg.Min, cfg.Max)
	if cfg.Window {
		r = cfg.Max
	}
	return &Pacer{cfg: cfg, rate: r, slowStart: !cfg.Window,
		lastDec: math.MinInt64 / 2, lastGrow: math.MinInt64 / 2}
}

// Rate returns the current rate (tx/s).
func (p *Pacer) Rate() float64 { return p.rate }

// CommitRate returns c, the commit rate averaged over block windows (tx/s),
// or 0 before the height has risen twice.
func (p *Pacer) CommitRate() float64 { return p.commit }

// BlockInterval returns I, the averaged block interval, or 0 before it is
// measured.
func (p *Pacer) BlockInterval() time.Duration {
	return time.Duration(p.interval * float64(time.Second))
}

// WorkingTarget returns T, the mempool size the controller steers under.
func (p *Pacer) WorkingTarget() int64 {
	if p.commit <= 0 {
		return p.cfg.Target
	}
	return min(p.cfg.Target, int64(p.cfg.Blocks*p.commit*p.interval))
}

// Observe takes one observation and returns the new rate.
func (p *Pacer) Observe(o Observation) float64 {
	prev, seen := p.last, p.seen
	p.last, p.seen = o, true
	if !seen {
		p.block = o
		return p.rate
	}
	if o.At <= prev.At {
		return p.rate
	}
	growing := false
	if o.Height > p.block.Height {
		if w := (o.At - p.block.At).Seconds(); p.rose && w > 0 {
			c := max(0, float64(o.Forwarded-p.block.Forwarded-(o.Mempool-p.block.Mempool))/w)
			p.commit = p.ewma(p.commit, c)
			p.interval = p.ewma(p.interval, w/float64(o.Height-p.block.Height))
		}
		t := p.WorkingTarget()
		growing = p.hasTrough && o.Mempool > t && o.Mempool > p.trough
		p.trough, p.hasTrough = o.Mempool, true
		p.block, p.rose = o, true
	}
	if p.cfg.Window {
		return p.rate
	}
	dt := (o.At - prev.At).Seconds()
	send := float64(o.Forwarded-prev.Forwarded+o.Full-prev.Full) / dt
	ceiling := min(p.cfg.Max, max(p.cfg.Initial, 2*send))
	full := o.Full > prev.Full
	over := o.Mempool > p.cfg.Target && o.Mempool > prev.Mempool
	switch {
	case full || over || growing:
		if o.At-p.lastDec >= p.cfg.Cooldown {
			p.lastDec = o.At
			b := p.rate
			switch {
			case p.slowStart:
				b = min(b, max(p.commit, b/2))
			case p.commit > 0:
				b = min(b, p.commit)
			}
			p.slowStart = false
			p.rate = clamp(p.cfg.Decrease*b, p.cfg.Min, p.cfg.Max)
		}
	case o.Mempool >= p.WorkingTarget(), p.rate >= ceiling:
		// At the target, or not binding: hold.
	case p.slowStart:
		if o.At-p.lastGrow >= p.cfg.Cooldown {
			p.lastGrow = o.At
			p.rate = clamp(min(2*p.rate, ceiling), p.cfg.Min, p.cfg.Max)
		}
	default:
		p.rate = clamp(min(p.rate+p.cfg.Increase*dt, ceiling), p.cfg.Min, p.cfg.Max)
	}
	return p.rate
}

// ewma folds x into the average avg (x itself when avg is unset).
func (p *Pacer) ewma(avg, x float64) float64 {
	if avg == 0 {
		return x
	}
	return avg + p.cfg.Alpha*(x-avg)
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
