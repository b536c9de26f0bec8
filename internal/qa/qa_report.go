package qa

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
)

// report rewrites the QA's report; a failure is printed, not fatal (the
// QA's data is in qa.json and its run directories).
func (q *qaRun) report() {
	if err := report.WriteQA(q.dir, *q.rec, qaInputs(q.dir, *q.rec)); err != nil {
		q.out.Phase("qa: report: %v", err)
	}
}

// qaInputs reads what the report needs besides qa.json: each side's
// search and grid records, and each step's run directories.
func qaInputs(dir string, rec results.QARecord) report.QAInputs {
	in := report.QAInputs{Runs: map[string][]string{}}
	for _, label := range rec.Labels {
		s := report.QASaturation{Label: label, SearchDir: stepDir(plan.Saturation, label, results.QASearchDir),
			GridDir: stepDir(plan.Saturation, label, results.QAGridDir)}
		if r, err := saturation.ReadSearch(filepath.Join(dir, s.SearchDir)); err == nil {
			s.Search = &r
		}
		if r, err := saturation.ReadSweep(filepath.Join(dir, s.GridDir)); err == nil {
			s.Grid = &r
		}
		in.Saturation = append(in.Saturation, s)
	}
	in.Sweeps = map[string]*saturation.SweepRecord{}
	for _, id := range []string{plan.VoteExtensions, plan.Storage} {
		if st := rec.Step(id); st != nil && len(st.Dirs) > 0 {
			if r, err := saturation.ReadSweep(filepath.Join(dir, st.Dirs[0])); err == nil {
				in.Sweeps[id] = &r
			}
		}
	}
	in.Disturbed = map[string][]string{}
	for _, st := range rec.Steps {
		for _, d := range st.Dirs {
			for _, r := range runDirsUnder(filepath.Join(dir, d)) {
				in.Runs[st.ID] = append(in.Runs[st.ID], results.RelDir(dir, r))
			}
			for _, r := range disturbedUnder(filepath.Join(dir, d)) {
				in.Disturbed[st.ID] = append(in.Disturbed[st.ID], results.RelDir(dir, r))
			}
		}
	}
	in.Provenance, in.Notes = provenance(dir, rec, in.Runs), releaseNotes(rec)
	return in
}

// disturbedUnder are the runs under root set aside because their host
// was busy (DIR.disturbed), measured again by the series runner.
func disturbedUnder(root string) []string {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".disturbed") {
			dirs = append(dirs, p)
			return filepath.SkipDir
		}
		return nil
	})
	return dirs
}

// Report rewrites the QA in dir from its run directories as today's code
// analyses and judges them, so that its report never carries a verdict
// that code no longer gives: every run of every step is analysed again
// (summary.json, autopsy.csv, findings.json: analysis.Analyze); every
// compared test's A/B experiment is compared again (series.RecompareAB)
// and its figures judged by the QA rule over the rounds it has (no more
// are run); every step's summary is made again from its records and its
// safety verdict from the new summaries; then the QA's verdict. qa.json
// records by, the cometlab that analysed it (AnalyzedBy, with the time),
// and the report is rewritten. The saturation searches' and sweeps' own
// records (their runs' evidence and the criterion's verdicts) are read
// as they are. say is told of each step.
func Report(dir, by string, say func(format string, a ...any)) (results.QARecord, error) {
	rec, err := results.ReadQA(dir)
	if err != nil {
		return rec, err
	}
	q := &qaRun{dir: dir, rec: &rec, th: compare.DefaultThresholds()}
	q.th.DefaultPct, q.th.Alpha = rec.ThresholdPct, cmp.Or(rec.Alpha, q.th.Alpha)
	for i := range rec.Steps {
		st := &rec.Steps[i]
		if st.Status != results.QADone {
			continue
		}
		if err := q.reanalyse(st); err != nil {
			return rec, fmt.Errorf("step %s: %w", st.ID, err)
		}
		say("qa: %s: %s", plan.Title(st.ID), cmp.Or(st.Verdict, "done"))
	}
	_ = q.verdict() // the exit code is the QA run's; a report only states it
	rec.AnalyzedBy, rec.AnalyzedAt = by, time.Now().UTC()
	if err := results.WriteJSON(filepath.Join(dir, results.QAFile), rec); err != nil {
		return rec, err
	}
	return rec, report.WriteQA(dir, rec, qaInputs(dir, rec))
}

// reanalyse analyses the runs of the finished step st again and makes its
// summary and verdict again from them (Report).
func (q *qaRun) reanalyse(st *results.QAStep) error {
	for _, d := range st.Dirs {
		for _, r := range runDirsUnder(filepath.Join(q.dir, d)) {
			if _, err := analysis.Analyze(r); err != nil {
				return fmt.Errorf("analyse %s: %w", results.RelDir(q.dir, r), err)
			}
		}
	}
	switch st.ID {
	case plan.Saturation:
		var parts []string
		for _, label := range q.rec.Labels {
			search, err := saturation.ReadSearch(filepath.Join(q.dir, stepDir(plan.Saturation, label, results.QASearchDir)))
			if err != nil {
				return err
			}
			grid, err := saturation.ReadSweep(filepath.Join(q.dir, stepDir(plan.Saturation, label, results.QAGridDir)))
			if err != nil {
				return err
			}
			parts = append(parts, saturationPart(label, search, grid, search.Search.Start))
		}
		st.Verdict, st.Summary = "", strings.Join(parts, "; ")
	case plan.Long, plan.Rotation, plan.Partition, plan.AbsentStake:
		dir := filepath.Join(q.dir, stepDir(st.ID))
		ab, err := series.RecompareAB(dir)
		if err != nil {
			return err
		}
		// The horizon the QA judged by (its budget of rounds), and the
		// rounds it has: no more.
		figs, look, err := judgeAB(dir, cmp.Or(st.RoundsBudget, ab.Pairs))
		if err != nil {
			return err
		}
		st.Figures = compare.QAFinal(figs, look.Rounds)
		q.judged(st)
	case plan.Upgrade:
		run, err := results.ReadRun(filepath.Join(q.dir, stepDir(st.ID)))
		if err != nil {
			return err
		}
		if q.sides, err = series.ReadSides(q.dir, q.rec.Labels); err != nil { // the candidate's release names the summary
			return err
		}
		q.upgraded(st, run.Status, strings.Join(run.Errors, "; "))
	case plan.VoteExtensions, plan.Storage:
		rec, err := saturation.ReadSweep(filepath.Join(q.dir, stepDir(st.ID)))
		if err != nil {
			return err
		}
		st.Verdict, st.Summary = results.QAVerdictNotJudged, veSummary(rec)
		if st.ID == plan.Storage {
			st.Summary = report.QAStorageSummary(report.QAStorageRows(filepath.Join(q.dir, stepDir(st.ID)), rec))
		}
	default:
		return nil // the QA load: no runs of its own
	}
	return q.safety(st)
}

// provenance is what each side of the QA in dir ran, from its runs (runs:
// each step's run directories, relative to dir, as qaInputs found them): a
// run is the baseline's or the candidate's by where it is (a side's
// saturation directory, an A/B run named after its side; the rolling
// upgrade starts on the baseline; the candidate's sweeps).
func provenance(dir string, rec results.QARecord, runs map[string][]string) []report.QAProvenance {
	sides := make([]report.QAProvenance, len(rec.Labels))
	for i, l := range rec.Labels {
		sides[i].Label = l
	}
	for _, st := range rec.Steps {
		for _, rel := range runs[st.ID] {
			i := sideOf(rel, st.ID, rec.Labels)
			run, err := results.ReadRun(filepath.Join(dir, rel))
			if i < 0 || err != nil {
				continue
			}
			var sum analysis.Summary
			_ = results.ReadJSON(filepath.Join(dir, rel, results.SummaryFile), &sum) // an unanalysed run counts no heights
			sides[i].AddRun(run, int(sum.Metrics["blocks"]))
		}
	}
	return sides
}

// sideOf is the index in labels of the side whose run rel is (relative
// to the QA directory) in step id, or -1.
func sideOf(rel, id string, labels []string) int {
	parts := strings.Split(rel, "/")
	for i, l := range labels {
		if id == plan.Saturation && len(parts) > 2 && parts[2] == l {
			return i
		}
		if strings.HasSuffix(path.Base(rel), "-"+l) && strings.Contains(rel, "/runs/") {
			return i
		}
	}
	switch {
	case id == plan.Upgrade:
		return 0
	case id == plan.VoteExtensions || id == plan.Storage:
		return len(labels) - 1
	}
	return -1
}

// releaseNotes are the headings of the release notes between the
// baseline's release and the candidate's, from the candidate's
// CHANGELOG.md in the Go module cache (where cometlab's build of the
// release put its source); nil when either side is no release or the
// file is not there.
func releaseNotes(rec results.QARecord) *report.QAReleaseNotes {
	if len(rec.Testnets) < 2 {
		return nil
	}
	from, to := rec.Testnets[0].CometBFTVersion, rec.Testnets[1].CometBFTVersion
	if !cometbft.IsRelease(from) || !cometbft.IsRelease(to) || !cometbft.Older(from, to) {
		return nil
	}
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		cache = filepath.Join(home, "go", "pkg", "mod")
	}
	p := filepath.Join(cache, "github.com", "cometbft", "cometbft@"+to, "CHANGELOG.md")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	n := &report.QAReleaseNotes{From: from, To: to, Source: "github.com/cometbft/cometbft@" + to + "'s CHANGELOG.md"}
	for _, r := range cometbft.ParseReleaseNotes(string(b), from, to) {
		n.Releases = append(n.Releases, report.QANotesRelease{Version: r.Version, Sections: r.Sections})
	}
	return n
}
