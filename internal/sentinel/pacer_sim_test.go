package sentinel

import (
	"math"
	"testing"
	"time"
)

// nodeModel is a CometBFT node running kvstore, as the pacer sees it: a
// mempool of Size txs; each proposal takes the whole mempool into the
// block; the height commits Fixed + PerTx × txs after the proposal, and the
// next proposal comes TimeoutCommit later. Txs arriving while the mempool
// is full are refused ("mempool is full"). A flood — the mempool always
// full — gives its saturation throughput, Size / (TimeoutCommit + Fixed +
// PerTx × Size), the most it can commit: bigger blocks share the fixed cost
// of a height.
type nodeModel struct {
	Size                 int64
	TimeoutCommit, Fixed float64 // s
	PerTx                float64 // s per tx in the block
}

func (m nodeModel) saturation() float64 {
	return float64(m.Size) / (m.TimeoutCommit + m.Fixed + m.PerTx*float64(m.Size))
}

// simulate runs the pacer in closed loop against m for d with an endless
// backlog of txs, polling every 250 ms, holding its sends at the gate as
// the sentinel does, and returns the committed tx/s
// from the first commit after 20 s to the last (whole blocks only) and the
// share of sends refused for a full mempool.
func (m nodeModel) simulate(cfg PaceConfig, d time.Duration) (goodput, fullShare float64) {
	const step = 0.005 // s
	p := NewPacer(cfg)
	var (
		mempool, block, forwarded, full, committed, sent int64
		height                                           int64 = 1
		credit                                           float64
		nextPropose                                      = m.TimeoutCommit
		commitAt                                         = math.Inf(1)
		warm                                             = 20.0
		from, to                                         float64 // first and last commit times after warm
		committedFrom, committedTo                       int64
		nextPoll                                         = 0.25
		polled, sentAtPoll                               int64
	)
	end := d.Seconds()
	for now := 0.0; now < end; now += step {
		credit = min(credit+p.Rate()*step, p.Rate()) // the bucket holds one second (paceBurst)
		for ; credit >= 1; credit-- {
			if polled+sent-sentAtPoll >= cfg.Target {
				break // the gate (Sentinel.gated)
			}
			sent++
			if mempool >= m.Size {
				full++
				continue
			}
			mempool++
			forwarded++
		}
		if now >= nextPropose && math.IsInf(commitAt, 1) {
			block, mempool = mempool, 0
			commitAt = now + m.Fixed + m.PerTx*float64(block)
		}
		if now >= commitAt {
			committed += block
			height++
			commitAt, nextPropose = math.Inf(1), now+m.TimeoutCommit
			if now >= warm {
				if from == 0 {
					from, committedFrom = now, committed
				}
				to, committedTo = now, committed
			}
		}
		if now >= nextPoll {
			nextPoll += 0.25
			polled, sentAtPoll = mempool, sent
			p.Observe(Observation{At: time.Duration(now * float64(time.Second)), Mempool: mempool,
				Height: height, Forwarded: forwarded, Full: full})
		}
	}
	return float64(committedTo-committedFrom) / (to - from), float64(full) / float64(sent)
}

// TestPacerGoodput runs the default controller against node models around
// the default testnet's (5,000-tx mempool, 1 s timeout_commit, ~1,450 tx/s
// saturated) and slower and faster ones: through the pacer each commits at
// least 95 % of what a flood would, and refused sends (queued again by the
// sentinel) stay under 1 % of what it sends: the gate keeps the mempool
// from filling.
func TestPacerGoodput(t *testing.T) {
	for _, m := range []nodeModel{
		{Size: 5000, TimeoutCommit: 1, Fixed: 0.2, PerTx: 0.0004},  // ~1,560 tx/s in 3.2 s blocks
		{Size: 5000, TimeoutCommit: 1, Fixed: 0.5, PerTx: 0.0008},  // a loaded machine: ~900 tx/s
		{Size: 5000, TimeoutCommit: 1, Fixed: 0.1, PerTx: 0.0001},  // a fast one: ~3,100 tx/s
		{Size: 10000, TimeoutCommit: 1, Fixed: 0.2, PerTx: 0.0004}, // a bigger mempool
	} {
		for _, window := range []bool{false, true} {
			cfg := DefaultPaceConfig()
			cfg.Target, cfg.Window = m.Size*95/100, window
			good, full := m.simulate(cfg, 120*time.Second)
			sat := m.saturation()
			t.Logf("%+v window=%v: saturation %.0f tx/s, through the pacer %.0f tx/s (%.1f %%), %.1f %% of sends refused full",
				m, window, sat, good, 100*good/sat, 100*full)
			if good < 0.95*sat {
				t.Errorf("%+v window=%v: goodput %.0f tx/s, under 95 %% of the saturation %.0f", m, window, good, sat)
			}
			if full > 0.01 {
				t.Errorf("%+v window=%v: %.1f %% of sends refused for a full mempool, want ≤ 1 %%", m, window, 100*full)
			}
		}
	}
}
