package analysis

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Stages returns the stage breakdown of each of the run's blocks that has
// precommits (precommits.csv) or commits heard (adoption.csv), in height
// order (results.Stage says what each stage is). The precommit quorum is
// counted in validators, not voting power: with unequal powers it is the
// count's, not the protocol's, quorum.
func Stages(in Input) []results.Stage {
	pre := map[int64][]results.Precommit{}
	for _, p := range in.Precommits {
		pre[p.Height] = append(pre[p.Height], p)
	}
	heard := map[int64][2]int64{} // height → first and last commit heard
	for _, a := range in.Adoption {
		if fl, ok := heard[a.Height]; !ok {
			heard[a.Height] = [2]int64{a.At, a.At}
		} else {
			heard[a.Height] = [2]int64{min(fl[0], a.At), max(fl[1], a.At)}
		}
	}
	var out []results.Stage
	for _, b := range in.RunBlocks() {
		ps, fl := pre[b.Height], heard[b.Height]
		if len(ps) == 0 && fl[0] == 0 {
			continue
		}
		out = append(out, stageOf(b, ps, fl))
	}
	return out
}

// stageOf is one height's breakdown from its precommits (offsets from its
// header time) and the first and last time a node was heard committing it
// (0 when none was).
func stageOf(b results.Block, ps []results.Precommit, heard [2]int64) results.Stage {
	nan := math.NaN()
	s := results.Stage{Height: b.Height, Round: b.Round, FirstPrecommitMs: nan, QuorumMs: nan, CommitMs: nan, SpreadMs: nan}
	var forBlock []float64
	for _, p := range ps {
		if p.Flag == "commit" {
			forBlock = append(forBlock, p.OffsetMs)
		}
	}
	s.Precommits = len(forBlock)
	quorumAt := nan
	s.FirstPrecommitMs = firstPrecommit(ps)
	if need := 2*len(ps)/3 + 1; len(ps) > 0 && len(forBlock) >= need {
		slices.Sort(forBlock)
		quorumAt = forBlock[need-1]
		s.QuorumMs = quorumAt - s.FirstPrecommitMs
	}
	if heard[0] != 0 {
		first := float64(heard[0]-b.Time) / results.NsPerMs
		s.SpreadMs = float64(heard[1]-heard[0]) / results.NsPerMs
		if !math.IsNaN(quorumAt) {
			s.CommitMs = first - quorumAt
		}
	}
	return s
}

// stageFigures puts the run's median of each stage over its heights (st,
// from Stages), and keeps the slow heights' stages (Summary.SlowStages).
func stageFigures(st []results.Stage, b *builder) {
	if len(st) == 0 {
		return
	}
	for _, s := range st {
		if slices.ContainsFunc(b.s.Autopsy, func(v Verdict) bool { return v.Height == s.Height }) {
			b.s.SlowStages = append(b.s.SlowStages, slowStage(s))
		}
	}
	for _, f := range stageFields {
		var vs []float64
		for i := range st {
			if v := f.get(&st[i]); !math.IsNaN(v) {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			slices.Sort(vs)
			b.put(f.id, stats.Percentile(vs, 50), "")
		}
	}
}

// SlowStage is a slow height's stage breakdown in summary.json (as in
// stages.csv; nil where a stage was not measured).
type SlowStage struct {
	Height           int64    `json:"height"`
	Round            int32    `json:"round"`
	FirstPrecommitMs *float64 `json:"first_precommit_ms"`
	QuorumMs         *float64 `json:"precommit_quorum_ms"`
	CommitMs         *float64 `json:"first_commit_ms"`
	SpreadMs         *float64 `json:"adoption_spread_ms"`
}

func slowStage(s results.Stage) SlowStage {
	ptr := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return SlowStage{Height: s.Height, Round: s.Round, FirstPrecommitMs: ptr(s.FirstPrecommitMs), QuorumMs: ptr(s.QuorumMs),
		CommitMs: ptr(s.CommitMs), SpreadMs: ptr(s.SpreadMs)}
}

// stageFields are the stages' figures: id, title, definition, value.
var stageFields = []struct {
	id, title, def string
	get            func(*results.Stage) float64
}{
	{"stage_first_precommit_p50_ms", "Stage: to the first precommit, median",
		"From a height's header time (the previous height's commit, under BFT time) to its first precommit (precommits.csv, validators' clocks): the wait after commit (timeout_commit), the proposal, the prevote quorum and any failed round. Median over the run's heights (stages.csv).",
		func(s *results.Stage) float64 { return s.FirstPrecommitMs }},
	{"stage_precommit_quorum_p50_ms", "Stage: precommit quorum, median",
		"From a height's first precommit to the precommit for its block that made more than two thirds of the validators (by count). Median over the run's heights (stages.csv).",
		func(s *results.Stage) float64 { return s.QuorumMs }},
	{"stage_commit_p50_ms", "Stage: quorum to first commit, median",
		"From the quorum's precommit (a validator's clock) to the first node heard committing the height (adoption.csv, cometlab's clock; the same clock for a local testnet): the commit, the block's execution and the new-block event. Median over the run's heights (stages.csv).",
		func(s *results.Stage) float64 { return s.CommitMs }},
	{"stage_adoption_spread_p50_ms", "Stage: first to last node committed, median",
		"From the first to the last node heard committing a height (adoption.csv). Median over the run's heights (stages.csv).",
		func(s *results.Stage) float64 { return s.SpreadMs }},
}

// stageDictionary returns the entries of the stage figures.
func stageDictionary() []Metric {
	var out []Metric
	for _, f := range stageFields {
		out = append(out, Metric{ID: f.id, Title: f.title, Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks,
			Source: "precommits.csv, adoption.csv, blocks.csv", Definition: f.def})
	}
	return out
}
