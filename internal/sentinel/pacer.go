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
// blocks, ~1,450 tx/s saturation): the mempool is kept under 2,000 txs,
// enough to fill every block and far from full.
func DefaultPaceConfig() PaceConfig {
	return PaceConfig{Target: 2000, Min: 10, Max: 100_000, Initial: 200,
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
// s = Δforwarded/Δt and the commit rate c = s − Δmempool/Δt (the txs that
// left the mempool per second), then:
//
//	mempool > Target, grown, Cooldown since the last decrease:
//	                          rate ← max(Min, Decrease × min(rate, s))
//	mempool > Target otherwise:       rate unchanged
//	mempool ≤ Target, in slow start:  rate ← min(2 × rate, ceiling)
//	mempool ≤ Target after that:      rate ← min(rate + Increase, ceiling)
//
// where ceiling = min(Max, max(Initial, 2 × s)): the rate grows only while it
// binds, so an idle spell does not leave it far above what the node was
// shown. Slow start (doubling until the first decrease, as in TCP) finds the
// node's capacity within a few observations; additive increase then probes
// it and multiplicative decrease, from the rate actually sent, backs off a
// growing backlog.
type Pacer struct {
	cfg       PaceConfig
	rate      float64
	slowStart bool
	last      Observation
	seen      bool
	lastDec   time.Duration
	commit    float64 // the latest commit-rate estimate (tx/s)
}

// NewPacer returns a controller at cfg.Initial.
func NewPacer(cfg PaceConfig) *Pacer {
	return &Pacer{cfg: cfg, rate: clamp(cfg.Initial, cfg.Min, cfg.Max), slowStart: true, lastDec: -1 << 62}
}

// Rate returns the current rate (tx/s).
func (p *Pacer) Rate() float64 { return p.rate }

// CommitRate returns the latest estimate of the node's commit rate (tx/s).
func (p *Pacer) CommitRate() float64 { return p.commit }

// Observe takes one observation and returns the new rate.
func (p *Pacer) Observe(o Observation) float64 {
	prev, seen := p.last, p.seen
	p.last, p.seen = o, true
	if !seen || o.At <= prev.At {
		return p.rate
	}
	dt := (o.At - prev.At).Seconds()
	send := float64(o.Forwarded-prev.Forwarded) / dt
	p.commit = max(0, send-float64(o.Mempool-prev.Mempool)/dt)
	ceiling := min(p.cfg.Max, max(p.cfg.Initial, 2*send))
	switch {
	case o.Mempool > p.cfg.Target:
		if o.Mempool > prev.Mempool && o.At-p.lastDec >= p.cfg.Cooldown {
			p.slowStart = false
			p.lastDec = o.At
			p.rate = clamp(p.cfg.Decrease*min(p.rate, send), p.cfg.Min, p.cfg.Max)
		}
	case p.rate >= ceiling:
		// Not binding: hold.
	case p.slowStart:
		p.rate = clamp(min(2*p.rate, ceiling), p.cfg.Min, p.cfg.Max)
	default:
		p.rate = clamp(min(p.rate+p.cfg.Increase, ceiling), p.cfg.Min, p.cfg.Max)
	}
	return p.rate
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
