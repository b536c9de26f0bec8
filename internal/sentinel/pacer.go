package sentinel

import "time"

// PaceConfig sets the AIMD controller.
type PaceConfig struct {
	// Target is the mempool size (txs) the controller steers under: above
	// it the node is taking in more than it commits.
	Target int64
	// Min and Max bound the rate (tx/s); Initial is where it starts.
	Min, Max, Initial float64
	// Increase is the additive step (tx/s) per observation while the
	// mempool is at or under Target.
	Increase float64
	// Decrease is the multiplicative factor (0 < Decrease < 1) applied when
	// the mempool is over Target and has grown since the last observation.
	Decrease float64
	// Cooldown is the least time between two decreases, so that one
	// backlog is not punished again before the last decrease can show (a
	// block interval is about right).
	Cooldown time.Duration
}

// DefaultPaceConfig suits the default testnet (a 5,000-tx mempool, ~1 s
// blocks, ~1,450 tx/s saturation): the mempool is kept under 3,500 txs,
// 70 % of its size. A fuller mempool makes bigger blocks, which carry more
// txs per second (with 2,000 the bench committed a third less than a full
// mempool did); the rest is room for the overshoot of one decrease.
func DefaultPaceConfig() PaceConfig {
	return PaceConfig{Target: 3500, Min: 10, Max: 100_000, Initial: 200,
		Increase: 50, Decrease: 0.8, Cooldown: time.Second}
}

// Observation is what the sentinel sees of the node at one moment.
type Observation struct {
	At        time.Duration // since the sentinel started
	Mempool   int64         // num_unconfirmed_txs
	Height    int64         // latest committed height
	Forwarded int64         // txs forwarded so far (cumulative)
}

// Pacer is an AIMD rate controller, a pure function of its observations.
// Between two observations Δt apart it computes the send rate
// s = Δforwarded/Δt; over each block window (from one observation at which
// the height rose to the next) it measures the commit rate
// (Δforwarded − Δmempool)/Δt, the txs that left the mempool per second, and
// keeps c, the mean of the latest measure and the previous c.
// Then, with b = min(rate, s, c) (c once measured):
//
//	mempool > Target (or > Target/2 in slow start), grown since the last
//	observation, Cooldown since the last decrease:
//	                                 rate ← max(Min, Decrease × b)
//	mempool over that otherwise:     rate unchanged
//	slow start (until the first decrease), once per Cooldown:
//	                                 rate ← min(2 × rate, ceiling)
//	after that:                      rate ← min(rate + Increase, ceiling)
//
// where ceiling = min(Max, max(Initial, 2 × s)): the rate grows only while it
// binds, so an idle spell does not leave it far above what the node was
// shown. Slow start (doubling once per Cooldown, as TCP does per round
// trip) finds the node's capacity within a few seconds and leaves it at
// half the target, before the backlog it built can fill the mempool;
// additive increase then probes the capacity and multiplicative decrease
// from the measured commit rate drains a growing backlog.
type Pacer struct {
	cfg       PaceConfig
	rate      float64
	slowStart bool
	last      Observation // the previous observation
	block     Observation // the observation at the last height rise
	seen      bool
	lastDec   time.Duration
	lastGrow  time.Duration
	commit    float64 // the commit rate over the last block window (tx/s); 0 until measured
}

// NewPacer returns a controller at cfg.Initial.
func NewPacer(cfg PaceConfig) *Pacer {
	return &Pacer{cfg: cfg, rate: clamp(cfg.Initial, cfg.Min, cfg.Max), slowStart: true,
		lastDec: -1 << 62, lastGrow: -1 << 62}
}

// Rate returns the current rate (tx/s).
func (p *Pacer) Rate() float64 { return p.rate }

// CommitRate returns the commit rate measured over the last block window
// (tx/s), or 0 before the height has risen twice.
func (p *Pacer) CommitRate() float64 { return p.commit }

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
	if o.Height > p.block.Height {
		if w := (o.At - p.block.At).Seconds(); w > 0 && p.block.Height > 0 {
			if c := float64(o.Forwarded-p.block.Forwarded-(o.Mempool-p.block.Mempool)) / w; c > 0 {
				if p.commit == 0 {
					p.commit = c
				} else {
					p.commit = (p.commit + c) / 2 // one window is noisy: smooth
				}
			}
		}
		p.block = o
	}
	send := float64(o.Forwarded-prev.Forwarded) / (o.At - prev.At).Seconds()
	ceiling := min(p.cfg.Max, max(p.cfg.Initial, 2*send))
	high := p.cfg.Target
	if p.slowStart {
		high = p.cfg.Target / 2
	}
	switch {
	case o.Mempool > high:
		if o.Mempool > prev.Mempool && o.At-p.lastDec >= p.cfg.Cooldown {
			p.slowStart = false
			p.lastDec = o.At
			b := min(p.rate, send)
			if p.commit > 0 {
				b = min(b, p.commit)
			}
			p.rate = clamp(p.cfg.Decrease*b, p.cfg.Min, p.cfg.Max)
		}
	case p.rate >= ceiling:
		// Not binding: hold.
	case p.slowStart:
		if o.At-p.lastGrow >= p.cfg.Cooldown {
			p.lastGrow = o.At
			p.rate = clamp(min(2*p.rate, ceiling), p.cfg.Min, p.cfg.Max)
		}
	default:
		p.rate = clamp(min(p.rate+p.cfg.Increase, ceiling), p.cfg.Min, p.cfg.Max)
	}
	return p.rate
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
