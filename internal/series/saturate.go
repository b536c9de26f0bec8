package series

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// SaturateOptions configure a saturation search.
type SaturateOptions struct {
	// Manifest is the testnet and load; the search sets the load's rate
	// and duration of each run (the connections stay).
	Manifest  manifest.Resolved
	Search    saturation.SearchConfig
	Criterion saturation.Criterion
	// Reuse runs every run on one testnet, drained and cooled down for
	// CoolDown between runs; the default is a fresh testnet per run.
	Reuse    bool
	CoolDown time.Duration
	// Dir is the search directory; "" means saturations/<search-id>.
	Dir string
	Env Env
}

// SearchGiven says which of a search's settings the user gave; the others
// SearchFor takes from the manifest.
type SearchGiven struct {
	Start, Probe, MinRate bool
}

// SearchFor is the saturation search of manifest m: cfg as the user set
// it, with what given says was not set taken from the manifest and the
// method's defaults: the first rate is the manifest's rate per
// connection, every run as long as its load (the search's DurationS),
// the growth probes as long as saturation.DefaultSearch makes them for
// those, and the lowest rate tried no higher than the first. An invalid
// search is bad input (exit 2).
func SearchFor(m manifest.Resolved, cfg saturation.SearchConfig, given SearchGiven) (saturation.SearchConfig, error) {
	cfg.DurationS = m.Load.Duration.Seconds()
	if !given.Start {
		cfg.Start = m.Load.Rate
	}
	if !given.Probe {
		cfg.ProbeDurationS = saturation.DefaultSearch(cfg.Start, cfg.DurationS).ProbeDurationS
	}
	if !given.MinRate {
		cfg.MinRate = min(cfg.MinRate, cfg.Start)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, exitcode.With(fmt.Errorf("search: %w", err), exitcode.Usage)
	}
	return cfg, nil
}

// DefaultSaturateDir is saturations/<id> under the current directory.
func DefaultSaturateDir(id string) string { return filepath.Join("saturations", id) }

// Saturate searches for the highest load the testnet sustains: it asks
// the stepper (analysis.SearchConfig.Next) for each run, runs it in
// steps/sNN-rRATE-DURATION, judges it with the criterion, and stops when
// the stepper is done. saturate.json (the path and the outcome) and
// saturate.md/saturate.html are rewritten after each run. An interrupt
// stops after recording the interrupted run; ResumeSaturate continues.
func Saturate(ctx context.Context, opts SaturateOptions) (saturation.SearchRecord, error) {
	if err := opts.Criterion.Validate(); err != nil {
		return saturation.SearchRecord{}, fmt.Errorf("%w criterion: %w", ErrInvalid, err)
	}
	if err := opts.Search.Validate(); err != nil {
		return saturation.SearchRecord{}, fmt.Errorf("%w search: %w", ErrInvalid, err)
	}
	if err := experiment.Refuse(opts.Manifest, opts.Reuse); err != nil {
		return saturation.SearchRecord{}, err
	}
	id := uuid.NewString()
	dir := opts.Dir
	if dir == "" {
		dir = DefaultSaturateDir(id)
	}
	if _, err := os.Stat(filepath.Join(dir, results.SaturateFile)); err == nil {
		return saturation.SearchRecord{}, fmt.Errorf("%s already holds a saturation search; resume it with --resume %s or choose another --out", dir, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return saturation.SearchRecord{}, err
	}
	m := opts.Manifest
	m.Load.Rate, m.Load.Duration = opts.Search.Start, results.Seconds(opts.Search.DurationS)
	text, err := manifest.Encode(m)
	if err != nil {
		return saturation.SearchRecord{}, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ManifestFile), text); err != nil {
		return saturation.SearchRecord{}, err
	}
	rec := saturation.SearchRecord{ID: id, Kind: "saturate", Status: results.StatusRunning, CometlabVersion: opts.Env.Version,
		Created: time.Now(), Host: experiment.HostInfo(), Testnet: TestnetInfo(m), Connections: m.Load.Connections, Mode: results.ModeFresh,
		Search: opts.Search, Criterion: opts.Criterion}
	if opts.Reuse {
		rec.Mode, rec.CoolDownS = results.ModeReuse, opts.CoolDown.Seconds()
	}
	if err := saveSaturate(dir, &rec); err != nil {
		return rec, err
	}
	return runSearch(ctx, dir, rec, m, opts.Env)
}

// ResumeSaturate continues the search in dir: finished runs are kept and
// replayed to the stepper; an unfinished one is dropped from the path
// (its directory moved to DIR.interrupted) and the search goes on.
func ResumeSaturate(ctx context.Context, dir string, env Env) (saturation.SearchRecord, error) {
	rec, err := saturation.ReadSearch(dir)
	if err != nil {
		return rec, fmt.Errorf("resume %s: %w", dir, err)
	}
	if rec.Kind != "saturate" {
		return rec, fmt.Errorf("resume %s: %s is not a saturation search (kind %q)", dir, results.SaturateFile, rec.Kind)
	}
	mf, err := manifest.Load(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		return rec, err
	}
	m, err := mf.Resolve()
	if err != nil {
		return rec, err
	}
	var kept []saturation.SearchStep
	for _, s := range rec.Steps {
		if results.Finished(s.Status) {
			kept = append(kept, s)
			continue
		}
		if err := SetAside(filepath.Join(dir, filepath.FromSlash(s.Dir))); err != nil {
			return rec, fmt.Errorf("resume: %w", err)
		}
	}
	rec.Steps, rec.Status, rec.Outcome = kept, results.StatusRunning, nil
	if err := saveSaturate(dir, &rec); err != nil {
		return rec, err
	}
	return runSearch(ctx, dir, rec, m, env)
}

// runSearch runs the stepper's runs until it is done or ctx ends. A step
// whose host was busy with other work is measured again as the next step
// (the series' policy; the disturbed step stays in the path, marked
// remeasured, and the search takes the new measurement).
func runSearch(ctx context.Context, dir string, rec saturation.SearchRecord, base manifest.Resolved, env Env) (saturation.SearchRecord, error) {
	s := newSeries(env, dir, rec.Mode, results.Seconds(rec.CoolDownS), rec.Criterion, rec.Search.MaxRuns)
	defer s.runs.Close()
	out := s.out
	out.Phase("saturate %s → %s: c=%d, from %s tx/s per connection (%s)", rec.ID, dir, rec.Connections,
		strconv.FormatFloat(rec.Search.Start, 'f', -1, 64), describeMode(rec.Mode))
	var redo *saturation.Step // a disturbed step to measure again
	for ctx.Err() == nil {
		step, done := rec.Search.Next(rec.Observations())
		again := redo != nil
		if again {
			step, done, redo = *redo, false, nil
		}
		if done {
			break
		}
		o, err := searchStep(ctx, s, dir, &rec, base, step)
		if err != nil {
			return rec, err
		}
		n := len(rec.Steps)
		if d := s.disturbed([]Outcome{o}, nil, again); d != nil {
			out.Phase("saturate: step %d was disturbed (%s): %s", n, d.Why, d.Action)
			if d.Action == results.ActionRunAgain {
				rec.Steps[n-1].Remeasured = true
				next := step
				next.Reason = fmt.Sprintf("step %d again: %s during it", n, d.Why)
				redo = &next
				rec.Outcome = conclude(rec)
				if err := saveSaturate(dir, &rec); err != nil {
					return rec, err
				}
			}
		}
	}
	rec.Status = results.StatusComplete
	if ctx.Err() != nil {
		rec.Status = results.StatusInterrupted
	}
	rec.Outcome = conclude(rec)
	rec.Figures = saturateFigures(rec)
	if err := saveSaturate(dir, &rec); err != nil {
		return rec, err
	}
	writeSaturateReport(out, dir, rec)
	out.Phase("saturate: %s; report %s", rec.Outcome.Summary, filepath.Join(dir, results.SaturateReportFile))
	if ctx.Err() != nil {
		return rec, ctx.Err()
	}
	return rec, Safety(dir, rec.Dirs())
}

// searchStep runs step as the next step of the search rec in dir,
// through the series' skeleton.
func searchStep(ctx context.Context, s *series, dir string, rec *saturation.SearchRecord, base manifest.Resolved, step saturation.Step) (Outcome, error) {
	n := len(rec.Steps) + 1
	st := saturation.SearchStep{N: n, Step: step, Dir: fmt.Sprintf("%s/s%02d-r%s-%ss", results.StepsDir, n,
		strconv.FormatFloat(step.Rate, 'f', -1, 64), strconv.FormatFloat(step.DurationS, 'f', -1, 64))}
	mark := func() error {
		s.out.Phase("saturate: step %d (%s): r = %s tx/s for %s s — %s", n, step.Phase, strconv.FormatFloat(step.Rate, 'f', -1, 64),
			strconv.FormatFloat(step.DurationS, 'f', -1, 64), step.Reason)
		st.Status, st.Started = results.StatusRunning, time.Now()
		rec.Steps = append(rec.Steps, st)
		return saveSaturate(dir, rec)
	}
	record := func(o Outcome) error {
		st := &rec.Steps[n-1]
		st.Status, st.Error, st.Evidence, st.Verdict, st.Ended = o.Status, o.Message(), o.Evidence, o.Verdict, time.Now()
		s.out.Phase("saturate: step %d %s", n, describeOutcome(o))
		rec.Outcome = conclude(*rec)
		return saveSaturate(dir, rec)
	}
	m := base
	m.Load.Rate, m.Load.Duration = step.Rate, results.Seconds(step.DurationS)
	return s.step(ctx, m, filepath.Join(dir, filepath.FromSlash(st.Dir)), mark, record, func() { writeSaturateReport(s.out, dir, *rec) })
}

func conclude(rec saturation.SearchRecord) *saturation.Outcome {
	o := rec.Search.Conclude(rec.Observations())
	return &o
}

// saturateFigures are the search's results in tx/s over all connections.
func saturateFigures(rec saturation.SearchRecord) map[string]float64 {
	o, c := rec.Outcome, float64(rec.Connections)
	if o == nil {
		return nil
	}
	f := map[string]float64{}
	if o.Saturation > 0 {
		f["saturation_tps"] = c * o.Saturation
	}
	if o.Recommended > 0 {
		f["recommended_tps"] = c * o.Recommended
	}
	return f
}

func saveSaturate(dir string, rec *saturation.SearchRecord) error {
	rec.Updated = time.Now()
	return results.WriteJSON(filepath.Join(dir, results.SaturateFile), rec)
}

func writeSaturateReport(out *experiment.Printer, dir string, rec saturation.SearchRecord) {
	if err := report.WriteSaturate(dir, rec, report.Options{}); err != nil {
		out.Phase("saturate: report: %v", err)
	}
}

// ReportSaturate rewrites the report of the search in dir from its files.
func ReportSaturate(dir string) (saturation.SearchRecord, error) {
	rec, err := saturation.ReadSearch(dir)
	if err != nil {
		return rec, err
	}
	return rec, report.WriteSaturate(dir, rec, report.Options{})
}
