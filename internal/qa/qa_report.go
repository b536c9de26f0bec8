package qa

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
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

// Report rewrites the report of the QA in dir from its files.
func Report(dir string) (results.QARecord, error) {
	rec, err := results.ReadQA(dir)
	if err != nil {
		return rec, err
	}
	return rec, report.WriteQA(dir, rec, qaInputs(dir, rec))
}
