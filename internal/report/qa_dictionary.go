package report

import (
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// qaDictionary is the QA report's data dictionary: every figure its
// tables show (and the exposure of each count judged as a rate), then the
// saturation step's figures, each with its id, unit, definition, how it
// is sampled (the run-directory files and series it comes from) and its
// better direction — rows of analysis.Dictionary and
// saturation.Dictionary, the dictionaries every figure is computed from,
// not a copy of them.
func (m mdWriter) qaDictionary(rec results.QARecord) {
	shown := map[string]bool{}
	for _, st := range rec.Steps {
		for _, f := range st.Figures {
			v := compare.QAVerdict(f.Verdict)
			if !f.Headline && (v == compare.QAPass || v == compare.QANotJudged) {
				continue
			}
			shown[f.ID] = true
			if f.Rate != nil && f.Rate.Exposure != "" {
				shown[f.Rate.Exposure] = true
			}
		}
	}
	if rec.Step("saturation") != nil {
		shown["committed_txs"] = true // the saturation table's cells
	}
	var rows [][]string
	row := func(d analysis.Metric) []string {
		how := d.Source
		switch {
		case d.PerNode:
			how += "; per node, then over the nodes as the definition says"
		case d.PerPerturbation:
			how += "; per perturbation"
		}
		return []string{"`" + d.ID + "`", d.Title, d.Unit, d.Definition, how, d.Better.String()}
	}
	for _, d := range analysis.Dictionary() {
		if shown[d.ID] {
			rows = append(rows, row(d))
			delete(shown, d.ID)
		}
	}
	if rec.Step("saturation") != nil {
		for _, d := range saturation.Dictionary() {
			if d.Source == "" {
				d.Source = "the saturation step's runs (saturate.json, sweep.json)"
			}
			rows = append(rows, row(d))
		}
	}
	var unknown []string
	for id := range shown {
		unknown = append(unknown, id)
	}
	slices.Sort(unknown)
	for _, id := range unknown {
		rows = append(rows, []string{"`" + id + "`", id, "", "not in this cometlab's dictionary (a figure of another cometlab's runs)", "", "unknown"})
	}
	if len(rows) == 0 {
		return
	}
	m.f("## Data dictionary\n\n")
	m.f("Every figure the tables above show, as this cometlab computes it (`analysis.Dictionary`, and the saturation step's " +
		"`saturation.Dictionary`); each run's report lists the whole dictionary and its plots.\n\n")
	m.table([]string{"id", "title", "unit", "definition", "how sampled", "better"}, "llllll", rows)
}
