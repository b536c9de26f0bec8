package series

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// SweepOptions configure a new sweep: a grid of load settings run on one
// testnet manifest.
type SweepOptions struct {
	// Manifest is the base manifest with the command line applied; each
	// cell applies its c, r and Params to a copy of it.
	Manifest manifest.Manifest
	// Connections and Rates (tx/s per connection) are the grid's columns
	// and rows; empty means the manifest's single value.
	Connections []int
	Rates       []float64
	// Params are further swept settings (see manifest.SweepKey).
	Params []results.SweepParam
	// Repeat runs every cell this many times (≥ 1).
	Repeat int
	// Reuse runs consecutive cells with the same testnet settings on one
	// testnet, after its mempools drain and CoolDown passes; the default
	// (false) starts a fresh testnet per cell, so cells are independent.
	Reuse    bool
	CoolDown time.Duration
	// Criterion marks saturated cells.
	Criterion saturation.Criterion
	// Dir is the sweep directory; "" means sweeps/<sweep-id>.
	Dir string
	Env Env
}

// DefaultSweepDir is sweeps/<id> under the current directory.
func DefaultSweepDir(id string) string { return filepath.Join("sweeps", id) }

// ErrInvalid marks a sweep or search that could not start because what
// was asked for is wrong (a grid value, a manifest, the criterion): nothing
// ran. It carries exitcode.Usage.
var ErrInvalid = exitcode.With(errors.New("invalid"), exitcode.Usage)

// ErrSomeFailed reports a sweep in which some run failed (it was recorded
// and skipped); it carries exit code 3, as a partial run does.
var ErrSomeFailed = exitcode.With(errors.New("some runs failed"), exitcode.Partial)

// Sweep creates a sweep directory and runs every cell of the grid, in
// order: each combination of Params, each repeat, each rate, each
// connection count. Each cell is an ordinary run directory under
// cells/<id>-<repeat>; sweep.json is rewritten atomically after each cell,
// and sweep.md/sweep.html with it. A failed cell is recorded and skipped
// (the error is ErrSomeFailed at the end); an interrupt (ctx) stops after
// recording the interrupted cell, which ResumeSweep runs again.
func Sweep(ctx context.Context, opts SweepOptions) (saturation.SweepRecord, error) {
	if err := opts.Criterion.Validate(); err != nil {
		return saturation.SweepRecord{}, fmt.Errorf("%w criterion: %w", ErrInvalid, err)
	}
	if opts.Repeat < 1 {
		return saturation.SweepRecord{}, fmt.Errorf("%w repeat: must be >= 1, got %d", ErrInvalid, opts.Repeat)
	}
	baseRes, err := opts.Manifest.Resolve()
	if err != nil {
		return saturation.SweepRecord{}, fmt.Errorf("%w manifest: %w", ErrInvalid, err)
	}
	if err := experiment.Refuse(baseRes, opts.Reuse); err != nil {
		return saturation.SweepRecord{}, err
	}
	conns, rates := opts.Connections, opts.Rates
	if len(conns) == 0 {
		conns = []int{baseRes.Load.Connections}
	}
	if len(rates) == 0 {
		rates = []float64{baseRes.Load.Rate}
	}
	conns, rates = sortedUnique(conns), sortedUnique(rates)
	cells, err := expandGrid(opts.Manifest, conns, rates, opts.Params)
	if err != nil {
		return saturation.SweepRecord{}, fmt.Errorf("%w grid: %w", ErrInvalid, err)
	}

	id := uuid.NewString()
	dir := opts.Dir
	if dir == "" {
		dir = DefaultSweepDir(id)
	}
	if _, err := os.Stat(filepath.Join(dir, results.SweepFile)); err == nil {
		return saturation.SweepRecord{}, fmt.Errorf("%s already holds a sweep; resume it with --resume %s or choose another --out", dir, dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, results.ManifestsDir), 0o755); err != nil {
		return saturation.SweepRecord{}, err
	}
	text, err := manifest.Encode(baseRes)
	if err != nil {
		return saturation.SweepRecord{}, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ManifestFile), text); err != nil {
		return saturation.SweepRecord{}, err
	}
	rec := saturation.SweepRecord{ID: id, Kind: "sweep", Status: results.StatusRunning, CometlabVersion: opts.Env.Version,
		Created: time.Now(), Host: experiment.HostInfo(), Testnet: TestnetInfo(baseRes), Mode: results.ModeFresh,
		Criterion: opts.Criterion, Grid: results.SweepGrid{Connections: conns, Rates: rates, Params: opts.Params,
			Repeat: opts.Repeat, DurationS: baseRes.Load.Duration.Seconds()}}
	if opts.Reuse {
		rec.Mode, rec.CoolDownS = results.ModeReuse, opts.CoolDown.Seconds()
	}
	// Run order: each combination of params, then each repeat, then r, c.
	perGroup := len(rates) * len(conns)
	for g := 0; g < len(cells); g += perGroup {
		for rep := range opts.Repeat {
			for _, c := range cells[g : g+perGroup] {
				rec.Cells = append(rec.Cells, saturation.SweepCell{SweepCell: results.SweepCell{ID: c.id, Params: c.params, Repeat: rep,
					Dir: results.CellsDir + "/" + fmt.Sprintf("%s-%d", c.id, rep), Status: results.StatusPending}})
			}
		}
	}
	for _, c := range cells {
		b, err := manifest.Encode(c.manifest)
		if err != nil {
			return rec, err
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, results.ManifestsDir, c.id+".toml"), b); err != nil {
			return rec, err
		}
	}
	if err := saveSweep(dir, &rec); err != nil {
		return rec, err
	}
	return runSweep(ctx, dir, rec, opts.Env)
}

// ResumeSweep continues the sweep in dir: cells that finished (complete,
// partial or failed) are kept; pending, running and interrupted ones run
// (an interrupted cell's old run directory is moved to DIR.interrupted).
// With retryFailed, failed cells run again too.
func ResumeSweep(ctx context.Context, dir string, retryFailed bool, env Env) (saturation.SweepRecord, error) {
	rec, err := saturation.ReadSweep(dir)
	if err != nil {
		return rec, fmt.Errorf("resume %s: %w", dir, err)
	}
	if rec.Kind != "sweep" {
		return rec, fmt.Errorf("resume %s: %s is not a sweep (kind %q)", dir, results.SweepFile, rec.Kind)
	}
	for i := range rec.Cells {
		c := &rec.Cells[i]
		if results.Finished(c.Status) && !(retryFailed && c.Status == results.StatusFailed) {
			continue
		}
		if err := SetAside(filepath.Join(dir, filepath.FromSlash(c.Dir))); err != nil {
			return rec, fmt.Errorf("resume: %w", err)
		}
		*c = saturation.SweepCell{SweepCell: results.SweepCell{ID: c.ID, Params: c.Params, Repeat: c.Repeat, Dir: c.Dir, Status: results.StatusPending}}
	}
	rec.Status = results.StatusRunning
	if err := saveSweep(dir, &rec); err != nil {
		return rec, err
	}
	return runSweep(ctx, dir, rec, env)
}

// runSweep runs the pending cells of rec.
func runSweep(ctx context.Context, dir string, rec saturation.SweepRecord, env Env) (saturation.SweepRecord, error) {
	out := experiment.NewPrinter(env.Out)
	manifests := map[string]manifest.Resolved{}
	for _, c := range rec.Cells {
		if _, ok := manifests[c.ID]; ok {
			continue
		}
		path := filepath.Join(dir, results.ManifestsDir, c.ID+".toml")
		m, err := manifest.Load(path)
		if err != nil {
			return rec, fmt.Errorf("cell %s: %w", c.ID, err)
		}
		if manifests[c.ID], err = m.Resolve(); err != nil {
			return rec, fmt.Errorf("cell %s: %w", c.ID, err)
		}
	}
	s := newSeries(env, dir, rec.Mode, results.Seconds(rec.CoolDownS), rec.Criterion, len(rec.Cells))
	defer s.runs.Close()

	total, done := len(rec.Cells), 0
	for _, c := range rec.Cells {
		if results.Finished(c.Status) {
			done++
		}
	}
	out.Phase("sweep %s → %s: %s, %d cells, %d to run (%s)", rec.ID, dir, describeGrid(rec.Grid), total, total-done, describeMode(rec.Mode))
	for i := range rec.Cells {
		c := &rec.Cells[i]
		if results.Finished(c.Status) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		done++
		if err := sweepCell(ctx, s, dir, &rec, c, manifests[c.ID], fmt.Sprintf("%d/%d", done, total)); err != nil {
			return rec, err
		}
		if c.Status == results.StatusInterrupted {
			break
		}
	}
	rec.Status = sweepStatus(ctx, rec.Cells)
	rec.Figures = sweepFigures(rec)
	if err := saveSweep(dir, &rec); err != nil {
		return rec, err
	}
	writeSweepReport(out, dir, rec)
	out.Phase("sweep: %s; report %s", rec.Status, filepath.Join(dir, results.SweepReportFile))
	if ctx.Err() != nil {
		return rec, ctx.Err()
	}
	if err := Safety(dir, rec.Dirs()); err != nil {
		return rec, err
	}
	if rec.Status == results.StatusPartial {
		return rec, fmt.Errorf("%w: see the cells' errors in %s", ErrSomeFailed, filepath.Join(dir, results.SweepFile))
	}
	return rec, nil
}

// sweepCell runs the cell c of rec (the n-th of the sweep in dir) and
// records it, measuring it again once when its host was disturbed (the
// series' policy; the disturbed run kept as DIR.disturbed).
func sweepCell(ctx context.Context, s *series, dir string, rec *saturation.SweepRecord, c *saturation.SweepCell, m manifest.Resolved, n string) error {
	out, runDir := s.out, filepath.Join(dir, filepath.FromSlash(c.Dir))
	mark := func() error {
		out.Phase("sweep: cell %s %s (repeat %d) → %s", n, c.ID, c.Repeat, c.Dir)
		c.Status, c.Started = results.StatusRunning, time.Now()
		return saveSweep(dir, rec)
	}
	record := func(o Outcome) error {
		c.Status, c.Error, c.Evidence, c.Verdict, c.Ended = o.Status, o.Message(), o.Evidence, o.Verdict, time.Now()
		out.Phase("sweep: cell %s (repeat %d) %s", c.ID, c.Repeat, describeOutcome(o))
		return saveSweep(dir, rec)
	}
	report := func() { writeSweepReport(out, dir, *rec) }
	for again := false; ; again = true {
		o, err := s.step(ctx, m, runDir, mark, record, report)
		if err != nil {
			return err
		}
		d := s.disturbed([]Outcome{o}, nil, again)
		if d == nil {
			return nil
		}
		if again {
			c.Disturbed.Why += "; again " + d.Why
			c.Disturbed.Action = d.Action
		} else {
			c.Disturbed = d
		}
		if d.Action != results.ActionRunAgain {
			return saveSweep(dir, rec)
		}
		out.Phase("sweep: cell %s (repeat %d) was disturbed (%s): measuring it again", c.ID, c.Repeat, d.Why)
		if err := setAsideAs(runDir, ".disturbed"); err != nil {
			return err
		}
	}
}

// sweepStatus is complete when every cell finished without failing,
// partial when some failed, interrupted when some did not finish.
func sweepStatus(ctx context.Context, cells []saturation.SweepCell) string {
	status := results.StatusComplete
	for _, c := range cells {
		switch {
		case !results.Finished(c.Status):
			return results.StatusInterrupted
		case c.Status == results.StatusFailed:
			status = results.StatusPartial
		}
	}
	if ctx.Err() != nil {
		return results.StatusInterrupted
	}
	return status
}

// sweepFigures are the sweep's results for its first group of cells.
func sweepFigures(rec saturation.SweepRecord) map[string]float64 {
	tables := saturation.Tables(rec.GridCells())
	if len(tables) == 0 {
		return nil
	}
	f := map[string]float64{}
	if t := tables[0]; t.Diagonal > 0 {
		f["saturation_diagonal_tps"] = t.Diagonal
	}
	if t := tables[0]; t.SaturatedTPS > 0 {
		f["saturated_tps"] = t.SaturatedTPS
	}
	return f
}

func saveSweep(dir string, rec *saturation.SweepRecord) error {
	rec.Updated = time.Now()
	return results.WriteJSON(filepath.Join(dir, results.SweepFile), rec)
}

// writeSweepReport rewrites sweep.md, sweep.html and the plot; a failure
// is printed, not fatal (the sweep's data is in sweep.json).
func writeSweepReport(out *experiment.Printer, dir string, rec saturation.SweepRecord) {
	if err := report.WriteSweep(dir, rec, report.Options{}); err != nil {
		out.Phase("sweep: report: %v", err)
	}
}

// ReportSweep rewrites the report of the sweep in dir from its files.
func ReportSweep(dir string) (saturation.SweepRecord, error) {
	rec, err := saturation.ReadSweep(dir)
	if err != nil {
		return rec, err
	}
	return rec, report.WriteSweep(dir, rec, report.Options{})
}

func sortedUnique[T int | float64](xs []T) []T {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// describeMode is the mode in words, for progress lines.
func describeMode(mode string) string {
	if mode == results.ModeReuse {
		return "one testnet reused across runs"
	}
	return "a fresh testnet per run"
}

// describeGrid is the grid in words, for progress lines.
func describeGrid(g results.SweepGrid) string {
	var b strings.Builder
	fmt.Fprintf(&b, "c ∈ %v × r ∈ %v", g.Connections, g.Rates)
	for _, p := range g.Params {
		fmt.Fprintf(&b, " × %s ∈ %v", p.Key, p.Values)
	}
	return b.String()
}
