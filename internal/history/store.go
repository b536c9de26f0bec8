package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// runColumns are the columns of runs that hold a Run, in the order
// runValues gives them and scanRun reads them.
const runColumns = `dir, parent, kind, id, status, note, created, ended, release, label, sources, manifest, app,
  validators, full_nodes, connections, rate, size, duration_s, load_detail,
  host_name, host_cores, host_cpu, host_mem, host_arch, host_fp, series`

func runValues(r Run) []any {
	return []any{r.Dir, r.Parent, r.Kind, r.ID, r.Status, r.Note, unixNs(r.Created), unixNs(r.Ended),
		r.Release, r.Label, sourcesJSON(r.Sources), r.Manifest, r.App, r.Validators, r.FullNodes,
		r.Load.Connections, r.Load.Rate, r.Load.Size, r.Load.DurationS, r.Load.Detail,
		r.Host.Name, r.Host.Cores, r.Host.CPU, r.Host.MemBytes, r.Host.Arch, r.Host.Fingerprint(), r.Series().ID()}
}

// scanRun reads a row of runColumns (after rid).
func scanRun(s interface{ Scan(...any) error }, rid *int64) (Run, error) {
	var r Run
	var created, ended int64
	var fp, series, sources string
	err := s.Scan(rid, &r.Dir, &r.Parent, &r.Kind, &r.ID, &r.Status, &r.Note, &created, &ended,
		&r.Release, &r.Label, &sources, &r.Manifest, &r.App, &r.Validators, &r.FullNodes,
		&r.Load.Connections, &r.Load.Rate, &r.Load.Size, &r.Load.DurationS, &r.Load.Detail,
		&r.Host.Name, &r.Host.Cores, &r.Host.CPU, &r.Host.MemBytes, &r.Host.Arch, &fp, &series)
	r.Created, r.Ended = fromUnixNs(created), fromUnixNs(ended)
	if err == nil && sources != "" {
		if jerr := json.Unmarshal([]byte(sources), &r.Sources); jerr != nil {
			return r, fmt.Errorf("runs.sources of %s: %w", r.Dir, jerr)
		}
		r.Commit, r.CommitTime = commitOf(r.Sources)
	}
	return r, err
}

// sourcesJSON is runs.sources: the sources as JSON, "" for none.
func sourcesJSON(s []results.Source) string {
	if len(s) == 0 {
		return ""
	}
	b, err := json.Marshal(s)
	if err != nil { // plain strings, times and bools always encode
		return ""
	}
	return string(b)
}

// unixNs is t in Unix ns, 0 for the zero time.
func unixNs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNs(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// putRuns replaces runs in the index within tx (see Index.Put).
func putRuns(ctx context.Context, tx *sql.Tx, runs []Run) error {
	del, err := tx.PrepareContext(ctx, `DELETE FROM runs WHERE dir = ?1 OR (?2 AND parent = ?1)`)
	if err != nil {
		return err
	}
	defer del.Close()
	for _, r := range runs {
		if _, err := del.ExecContext(ctx, r.Dir, r.Parent == ""); err != nil {
			return err
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO runs (`+runColumns+`) VALUES (`+strings.Repeat("?, ", 26)+`?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	fig, err := tx.PrepareContext(ctx, `INSERT INTO figures (rid, figure, value, lo, hi) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer fig.Close()
	for _, r := range runs {
		res, err := ins.ExecContext(ctx, runValues(r)...)
		if err != nil {
			return err
		}
		rid, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for _, id := range slices.Sorted(maps.Keys(r.Figures)) {
			f := r.Figures[id]
			var lo, hi any
			if f.Interval != nil {
				lo, hi = f.Interval.Lo, f.Interval.Hi
			}
			if _, err := fig.ExecContext(ctx, rid, id, f.Value, lo, hi); err != nil {
				return err
			}
		}
	}
	return nil
}

// Filter selects runs. Zero fields select everything; every field set
// must hold.
type Filter struct {
	Kinds  []string // any of these kinds
	Status []string // any of these statuses
	// Release is a release or a release line: "v0.38" selects v0.38 and
	// every v0.38.x, also as run.json records a binary that reports
	// another version ("v0.38.26 (reports itself as …)").
	Release  string
	Label    string
	Manifest string // a prefix of the manifest hash
	Host     string // part of the host's name or of its fingerprint
	Series   string // a prefix of SeriesKey.ID
	Dir      string // the run of this directory (absolute)
	Parent   string // the runs of this series directory
	TopLevel bool   // only directories of their own (no Parent)
	// Since and Until bound the creation time: Since ≤ created < Until.
	Since, Until time.Time
	// Limit keeps the newest Limit runs; 0 keeps every one.
	Limit int
	// Figures are the figures to load; nil loads every one, an empty
	// non-nil slice none.
	Figures []string
}

// where is f as an SQL condition over runs and its arguments.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		conds = append(conds, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("kind", f.Kinds)
	in("status", f.Status)
	like := func(s string) string {
		return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
	}
	if f.Release != "" {
		// run.json's "v0.40.0 (reports itself as 0.39.0)" is v0.40.0.
		conds = append(conds, `(release = ? OR release LIKE ? ESCAPE '\' OR release LIKE ? ESCAPE '\')`)
		args = append(args, f.Release, like(f.Release)+".%", like(f.Release)+" (%")
	}
	if f.Label != "" {
		conds = append(conds, "label = ?")
		args = append(args, f.Label)
	}
	if f.Manifest != "" {
		conds = append(conds, `manifest LIKE ? ESCAPE '\'`)
		args = append(args, like(f.Manifest)+"%")
	}
	if f.Host != "" {
		conds = append(conds, `(host_name LIKE ? ESCAPE '\' OR host_fp LIKE ? ESCAPE '\')`)
		args = append(args, "%"+like(f.Host)+"%", "%"+like(f.Host)+"%")
	}
	if f.Series != "" {
		conds = append(conds, `series LIKE ? ESCAPE '\'`)
		args = append(args, like(f.Series)+"%")
	}
	if f.Dir != "" {
		conds = append(conds, "dir = ?")
		args = append(args, f.Dir)
	}
	if f.Parent != "" {
		conds = append(conds, "parent = ?")
		args = append(args, f.Parent)
	}
	if f.TopLevel {
		conds = append(conds, "parent = ''")
	}
	if !f.Since.IsZero() {
		conds = append(conds, "created >= ?")
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		conds = append(conds, "created < ?")
		args = append(args, f.Until.UnixNano())
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// Runs returns the runs f selects, newest first (by creation time, then
// directory), from one snapshot of the index.
func (x *Index) Runs(ctx context.Context, f Filter) ([]Run, error) {
	tx, err := x.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	cond, args := f.where()
	q := `SELECT rid, ` + runColumns + ` FROM runs WHERE ` + cond + ` ORDER BY created DESC, dir`
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	var out []Run
	byRID := map[int64]int{}
	for rows.Next() {
		var rid int64
		r, err := scanRun(rows, &rid)
		if err != nil {
			rows.Close()
			return nil, err
		}
		byRID[rid] = len(out)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 || (f.Figures != nil && len(f.Figures) == 0) {
		return out, nil
	}
	if err := loadFigures(ctx, tx, q, args, f.Figures, out, byRID); err != nil {
		return nil, err
	}
	return out, nil
}

// maxFigureList is the most figures loadFigures asks SQLite for by name.
const maxFigureList = 32

// loadFigures fills the Figures of out from the figures of the runs the
// query runsQ selects (within the same transaction), only ids when given.
func loadFigures(ctx context.Context, tx *sql.Tx, runsQ string, args []any, ids []string, out []Run, byRID map[int64]int) error {
	q := `SELECT rid, figure, value, lo, hi FROM figures WHERE rid IN (SELECT rid FROM (` + runsQ + `))`
	var want map[string]bool
	switch {
	case len(ids) > maxFigureList:
		// SQLite tests a long IN list on every row: reading every figure
		// and keeping those asked for is faster (a third, at 134 of 138).
		want = make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
	case len(ids) > 0:
		q += " AND figure IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")"
		for _, id := range ids {
			args = append(args, id)
		}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rid int64
		var id string
		var v float64
		var lo, hi sql.NullFloat64
		if err := rows.Scan(&rid, &id, &v, &lo, &hi); err != nil {
			return err
		}
		i, ok := byRID[rid]
		if !ok || (want != nil && !want[id]) {
			continue
		}
		if out[i].Figures == nil {
			out[i].Figures = map[string]Figure{}
		}
		fig := Figure{Value: v}
		if lo.Valid && hi.Valid {
			fig.Interval = &Interval{Lo: lo.Float64, Hi: hi.Float64}
		}
		out[i].Figures[id] = fig
	}
	return rows.Err()
}

// Get returns the run of the directory dir (absolute) and whether the
// index holds it.
func (x *Index) Get(ctx context.Context, dir string) (Run, bool, error) {
	if dir == "" {
		return Run{}, false, nil
	}
	runs, err := x.Runs(ctx, Filter{Dir: dir})
	if err != nil || len(runs) == 0 {
		return Run{}, false, err
	}
	return runs[0], true, nil
}
