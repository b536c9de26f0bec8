package report

import (
	"fmt"
	"path/filepath"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// boundRun is one run of a search read back for what bounded it: its
// rate and the summary figures of the split between consensus and app.
type boundRun struct {
	what string
	rate float64
	s    analysis.Summary
}

// cpuPerTxMs is the nodes' CPU (all their processes, ms) per committed
// transaction of s: the sum of the nodes' mean CPU over the committed rate;
// false without either.
func cpuPerTxMs(s analysis.Summary) (float64, bool) {
	tps := s.Metrics["committed_tps"]
	var cores float64
	for _, fs := range s.Nodes {
		cores += fs["cpu_mean_pct"] / 100
	}
	if tps <= 0 || cores == 0 {
		return 0, false
	}
	return cores / tps * 1000, true
}

// saturationBound writes "What bounded the saturation point": for the
// highest full-length pass and the lowest failure, how each height divided
// between the app and consensus, how busy the host was and the nodes' CPU
// per committed transaction; then which of them bounded the point: the
// app when it took half of each height or more at the failure, else the
// host's CPUs when they were 90 % busy or more (with the CPU each
// transaction cost the nodes, which a kvstore search on the same testnet
// splits into consensus's and the app's), else consensus. Nothing without
// a bracket or without the runs' summaries.
func (m mdWriter) saturationBound(dir string, rec saturation.SearchRecord) {
	o := rec.Outcome
	if o == nil || o.Low <= 0 || o.High <= 0 {
		return
	}
	var runs []boundRun
	for _, want := range []struct {
		what string
		rate float64
	}{{"highest pass", o.Low}, {"lowest failure", o.High}} {
		for _, st := range rec.Steps {
			if st.Rate != want.rate || st.Dir == "" {
				continue
			}
			var s analysis.Summary
			if results.ReadJSON(filepath.Join(dir, st.Dir, results.SummaryFile), &s) == nil {
				runs = append(runs, boundRun{want.what, want.rate, s})
			}
			break
		}
	}
	if len(runs) != 2 {
		return
	}
	if _, ok := runs[1].s.Metrics["app_share_of_interval"]; !ok {
		return
	}
	c := float64(rec.Connections)
	m.f("## What bounded the saturation point\n\n")
	var rows [][]string
	for _, r := range runs {
		s := r.s.Metrics
		cpu := "—"
		if v, ok := cpuPerTxMs(r.s); ok {
			cpu = fmt.Sprintf("%.2f", v)
		}
		rows = append(rows, []string{r.what, fmtRateTPS(c * r.rate), fmt.Sprintf("%.0f", s["committed_tps"]), fmt.Sprintf("%.0f", s["block_interval_mean_s"]*1000),
			fmt.Sprintf("%.0f + %.0f", s["block_processing_time_mean_ms"], s["app_commit_mean_ms"]), fmt.Sprintf("%.0f %%", 100*s["app_share_of_interval"]),
			fmt.Sprintf("%.0f %%", s["host_busy_mean_pct"]), cpu})
	}
	m.table([]string{"run", "offered tx/s", "committed tx/s", "block interval ms", "app ms (execute + commit)", "app's share of a height", "host CPUs busy", "node CPU ms per committed tx"},
		"lrrrrrrr", rows)
	f := runs[1].s.Metrics
	cpu, okCPU := cpuPerTxMs(runs[1].s)
	switch {
	case f["app_share_of_interval"] >= 0.5:
		m.f("**The app bounded it**: at the first failure the chain waited for the app (FinalizeBlock, then Commit) %.0f %% of each height.\n\n", 100*f["app_share_of_interval"])
	case f["host_busy_mean_pct"] >= 90 && okCPU:
		m.f("**The host's CPUs bounded it**: they were %.0f %% busy at the first failure, and each committed transaction cost the nodes %.2f ms of CPU "+
			"(consensus's and the app's together, every node's). The app took %.0f %% of each height, under half: the heights did not wait on it as much as on the CPUs; "+
			"the same search with the kvstore on this testnet gives consensus's own CPU per transaction, and the difference is the app's.\n\n",
			f["host_busy_mean_pct"], cpu, 100*f["app_share_of_interval"])
	default:
		m.f("**Consensus bounded it**: at the first failure the app took %.0f %% of each height, and the host's CPUs were %.0f %% busy.\n\n",
			100*f["app_share_of_interval"], f["host_busy_mean_pct"])
	}
}
