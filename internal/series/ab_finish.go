package series

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
)

// finish compares the runs of the rounds done (when every side has one),
// writes the comparison with the sequential decisions or the A/A noise at
// its top, noise.json and the last ab.json. It returns runErr, the error
// of the run that ended the rounds early; else the series' safety verdict
// (exit code 5) when a run broke safety; else ErrWorse when a candidate
// is worse.
func (l *abLoop) finish(dirs [][]string, runErr error) (ABResult, error) {
	rec := l.rec
	res := ABResult{Dir: l.dir}
	rec.Status, rec.Partial = results.StatusComplete, runErr != nil
	if code, _ := exitcode.Of(runErr); code == exitcode.Interrupted {
		rec.Status = results.StatusInterrupted
	} else if runErr != nil {
		rec.Status = results.StatusFailed
	}
	complete := true
	for _, ds := range dirs {
		complete = complete && len(ds) > 0
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return res, err
	}
	if complete {
		c, err := l.compare(dirs)
		if err != nil {
			return res, err
		}
		res.Compare, res.FalseAlarms = &c.result, c.falseAlarms
	}
	if err := saveAB(l.dir, rec); err != nil {
		return res, err
	}
	res.Record, res.Finished = *rec, true
	if runErr != nil {
		return res, runErr
	}
	var all []string
	for _, ds := range dirs {
		all = append(all, ds...)
	}
	if err := Safety("", all); err != nil {
		return res, err // before any verdict
	}
	if rec.Verdict == compare.Worse && !rec.AA {
		return res, ErrWorse
	}
	return res, nil
}

// abCompared is what comparing an experiment's rounds gave: the
// comparison, and for an A/A calibration its false alarms.
type abCompared struct {
	result      compare.Result
	falseAlarms *compare.FalseAlarms
}

// compare compares the runs of every side (dirs), sets rec's verdict (and
// for an A/A its noise.json) and writes the comparison's report
// (compare.md, compare.json).
func (l *abLoop) compare(dirs [][]string) (abCompared, error) {
	rec := l.rec
	var out abCompared
	given := make([]compare.SideDirs, len(dirs))
	for i := range dirs {
		given[i] = compare.SideDirs{Label: rec.Labels[i], Dirs: dirs[i]}
	}
	c, cs, err := compare.Runs(given, compare.Options{Thresholds: l.th, AllowTimeScaleMismatch: rec.AllowTimeScaleMismatch}, compare.LoadOptions{})
	if err != nil {
		return abCompared{}, err
	}
	rec.Verdict = c.Verdict
	var preface string
	if rec.Auto() {
		rec.Verdict = SequentialVerdict(rec.Sequential)
		if compare.ViolationWorse(c) {
			rec.Verdict = compare.Worse // a safety violation is worse whatever the sequential rule tested
		}
		preface = report.ABSequentialMarkdown(report.ABSequential{Labels: rec.Labels, Pairs: rec.Pairs, MaxPairs: rec.MaxPairs,
			Decisions: rec.Sequential, Verdict: rec.Verdict, Method: rec.Method, Alpha: rec.Alpha, FamilyWise: rec.FamilyWise,
			Stop: rec.Stop, Judged: rec.Judged})
	}
	preface = "Order of the runs in each round: " + OrderText(cmp.Or(rec.Order, OrderCounterbalanced), rec.Seed) + ".\n\n" + preface
	for _, d := range rec.Disturbed {
		preface = fmt.Sprintf("Round %d ran while the host was busy with other work (%s): %s.\n\n", d.Round, d.Why, d.Action) + preface
	}
	if rec.AA && len(cs) == 2 {
		noise := compare.MeasureNoise(rec.Base, cs[0].Runs, cs[1].Runs, l.th.Alpha)
		firsts, seconds := positions(rec.Rounds[:rec.Pairs], cs)
		noise.Position = compare.PositionEffects(firsts, seconds, compare.PositionMetrics, 1-l.th.Alpha)
		fa, err := compare.CountFalseAlarms(rec.Base, cs[0].Runs, cs[1].Runs, compare.Options{Thresholds: l.th, AllowTimeScaleMismatch: rec.AllowTimeScaleMismatch})
		if err != nil {
			return abCompared{}, err
		}
		noise.FalseAlarms = &fa
		if err := results.WriteJSON(filepath.Join(l.dir, NoiseFile), noise); err != nil {
			return abCompared{}, err
		}
		rec.Noise, out.falseAlarms = NoiseFile, &fa
		preface = report.ABNoiseMarkdown(noise) + preface
	}
	if err := report.WriteCompare(l.dir, c, cs, report.CompareOptions{Command: rec.Command, Preface: preface, Calibration: rec.AA}); err != nil {
		return abCompared{}, err
	}
	out.result = c
	return out, nil
}

// RecompareAB compares again the rounds of the finished A/B experiment in
// dir, by today's comparison and with its own thresholds, rewriting its
// verdict (ab.json), compare.json and report; its runs are read as they
// are (analyse them first for today's figures). A mode that judges the
// experiment by a rule of its own (the QA) reads compare.json after it.
func RecompareAB(dir string) (ABRecord, error) {
	rec, err := ReadAB(dir)
	if err != nil {
		return rec, err
	}
	if rec.Status != results.StatusComplete || rec.Pairs == 0 {
		return rec, fmt.Errorf("%s: the experiment is %s with %d rounds: resume it before comparing it again", dir, rec.Status, rec.Pairs)
	}
	l := &abLoop{dir: dir, rec: &rec, th: compare.DefaultThresholds()}
	if rec.Thresholds != nil {
		l.th = *rec.Thresholds
	}
	dirs, err := rec.sideDirs(dir)
	if err != nil {
		return rec, err
	}
	if _, err := l.compare(dirs); err != nil {
		return rec, err
	}
	return rec, saveAB(dir, &rec)
}

// ErrWorse marks an A/B experiment in which a candidate is worse than the
// baseline (exit code 4); an A/A calibration never is.
var ErrWorse = exitcode.With(errors.New("a candidate is worse than the baseline"), exitcode.Regression)

// positions pairs the runs of each round of two sides by when they ran:
// the first run of round i in firsts[i], the second in seconds[i] (rounds
// holds the run directories in the order they ran; sides' runs are found
// by directory).
func positions(rounds [][]string, sides []compare.Side) (firsts, seconds []compare.Run) {
	byDir := map[string]compare.Run{}
	for _, s := range sides {
		for _, r := range s.Runs {
			byDir[r.Dir] = r
		}
	}
	for _, ds := range rounds {
		if len(ds) != 2 {
			continue
		}
		a, okA := byDir[ds[0]]
		b, okB := byDir[ds[1]]
		if okA && okB {
			firsts, seconds = append(firsts, a), append(seconds, b)
		}
	}
	return firsts, seconds
}
