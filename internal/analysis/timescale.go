package analysis

import (
	"strconv"

	"github.com/cometlab/cometlab/internal/results"
)

// ToModel turns s, the figures of a run at time scale k computed in the
// host's time, into the model's: every figure by its dictionary unit
// (ModelValue: times ÷k, rates ×k, counts as they are) in Metrics, Nodes
// and each perturbation's Figures and Intervals; the perturbations',
// clients' and catch-ups' own times and rates; the autopsy's intervals
// and the slow heights' stages. It adds a note saying so. Summarize
// calls it once, last, and records k in s.TimeScale; s is unchanged at
// k = 1. The sentences (anomalies,
// notes, the autopsy's evidence) keep the host's times they quote.
func ToModel(s *Summary, k float64) {
	if k == 0 || k == 1 {
		return
	}
	units := map[string]string{}
	for _, m := range Dictionary() {
		units[m.ID] = m.Unit // an id the dictionary lacks has unit "": unchanged
	}
	s.Metrics = modelFigures(s.Metrics, units, k)
	for n, figs := range s.Nodes {
		s.Nodes[n] = modelFigures(figs, units, k)
	}
	t := func(v float64) float64 { return v / k }
	for i := range s.Perturbations {
		p := &s.Perturbations[i]
		p.BeginS = t(p.BeginS)
		if p.EndS != nil {
			e := t(*p.EndS)
			p.EndS = &e
		}
		p.Figures = modelFigures(p.Figures, units, k)
		for id, iv := range p.Intervals {
			u := units[id]
			iv.Lo, iv.Hi = ModelValue(iv.Lo, u, k), ModelValue(iv.Hi, u, k)
			p.Intervals[id] = iv
		}
	}
	for i := range s.Clients {
		c := &s.Clients[i]
		c.OfferedTPS, c.CommittedTPS = c.OfferedTPS*k, c.CommittedTPS*k
		for _, v := range []*float64{c.BlockP50, c.BlockP99, c.ObservedP50, c.ObservedP99} {
			if v != nil {
				*v = t(*v)
			}
		}
	}
	for i := range s.Lanes {
		for _, v := range []*float64{s.Lanes[i].BlockP50, s.Lanes[i].BlockP95, s.Lanes[i].BlockP99} {
			if v != nil {
				*v = t(*v)
			}
		}
	}
	for i := range s.CatchUps {
		c := &s.CatchUps[i]
		c.StartS, c.CatchUpS, c.BlocksPerS = t(c.StartS), t(c.CatchUpS), c.BlocksPerS*k
	}
	for i := range s.Autopsy {
		s.Autopsy[i].IntervalMs = t(s.Autopsy[i].IntervalMs)
	}
	for i := range s.SlowStages {
		st := &s.SlowStages[i]
		for _, v := range []*float64{st.FirstPrecommitMs, st.QuorumMs, st.CommitMs, st.SpreadMs} {
			if v != nil {
				*v = t(*v)
			}
		}
	}
	s.TimeScale = k
	ks := strconv.FormatFloat(k, 'g', -1, 64)
	s.Notes = append(s.Notes, "scaled in time by k = "+ks+": every figure is in model time (times ÷"+ks+", rates ×"+ks+
		"; counts, sizes and CPU shares as measured); the sentences above and below quote the host's times, and the CSV files "+
		"other than autopsy.csv and stages.csv keep them (docs/timescale.md)")
}

// stagesToModel turns the stage breakdown (stages.csv) of a run at time
// scale k into model time, as ToModel does the summary's.
func stagesToModel(stages []results.Stage, k float64) {
	if k == 0 || k == 1 {
		return
	}
	for i := range stages {
		st := &stages[i]
		st.FirstPrecommitMs, st.QuorumMs, st.CommitMs, st.SpreadMs = st.FirstPrecommitMs/k, st.QuorumMs/k, st.CommitMs/k, st.SpreadMs/k
	}
}

// modelFigures returns figs, keyed by dictionary id, in model time by
// their units; a fresh map (nil for nil).
func modelFigures(figs map[string]float64, units map[string]string, k float64) map[string]float64 {
	if figs == nil {
		return nil
	}
	out := make(map[string]float64, len(figs))
	for id, v := range figs {
		out[id] = ModelValue(v, units[id], k)
	}
	return out
}
