package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
)

// ComparePage is two runs compared by the compare engine (compare.Runs,
// cometlab compare's), the older the baseline unless the URL says which;
// with no runs chosen, the runs to choose from.
type ComparePage struct {
	Baseline  *history.Run `json:"baseline,omitempty"`
	Candidate *history.Run `json:"candidate,omitempty"`
	// Verdict is the comparison's (worse when any figure is worse).
	Verdict     compare.Verdict `json:"verdict,omitempty"`
	VerdictText string          `json:"verdict_text,omitempty"`
	// Better and Worse count the candidate's figures judged so.
	Better      int                   `json:"better"`
	Worse       int                   `json:"worse"`
	Differences []compare.SettingDiff `json:"differences,omitempty"`
	Warnings    []string              `json:"warnings,omitempty"`
	Method      *compare.Method       `json:"method,omitempty"`
	// Rows are every figure compared, in the dictionary's order; Key marks
	// those cometlab compare's table shows and those better or worse.
	Rows []CompareRow `json:"rows,omitempty"`
	// Choices are the newest runs, to pick two of when none are given.
	Choices []history.Run `json:"choices,omitempty"`
}

// CompareRow is one figure: baseline, candidate, Δ, Δ %, p and verdict.
type CompareRow struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Unit        string          `json:"unit,omitempty"`
	Better      string          `json:"better,omitempty"`
	Key         bool            `json:"key,omitempty"`
	Baseline    *float64        `json:"baseline"`
	Candidate   *float64        `json:"candidate"`
	Delta       *float64        `json:"delta"`
	DeltaPct    *float64        `json:"delta_pct"`
	P           *float64        `json:"p,omitempty"`
	Verdict     compare.Verdict `json:"verdict"`
	VerdictText string          `json:"verdict_text"`
	Reason      string          `json:"reason,omitempty"`
}

// Title is the page's title.
func (p ComparePage) Title() string {
	if p.Baseline == nil || p.Candidate == nil {
		return "Compare two runs"
	}
	return "Compare " + shortDir(p.Candidate.Dir) + " with " + shortDir(p.Baseline.Dir)
}

// Section is the navigation's entry of the page.
func (ComparePage) Section() string { return "compare" }

// KeyRows are the rows marked Key.
func (p ComparePage) KeyRows() []CompareRow {
	var out []CompareRow
	for _, r := range p.Rows {
		if r.Key {
			out = append(out, r)
		}
	}
	return out
}

// SwapURL compares the two the other way round.
func (p ComparePage) SwapURL() string {
	if p.Baseline == nil || p.Candidate == nil {
		return ""
	}
	return "/compare?" + (url.Values{"base": {p.Candidate.Dir}, "cand": {p.Baseline.Dir}}).Encode()
}

// APIURL is the comparison's JSON.
func (p ComparePage) APIURL() string {
	if p.Baseline == nil || p.Candidate == nil {
		return "/api/compare"
	}
	return "/api/compare?" + (url.Values{"base": {p.Baseline.Dir}, "cand": {p.Candidate.Dir}}).Encode()
}

// choices is how many of the newest runs the picker offers.
const choices = 200

// comparePage is the value of /compare and /api/compare: base= and cand=
// name the sides; or run= twice (the runs list's checkboxes), the older
// the baseline; or nothing, and the page offers the newest runs.
func (s *Server) comparePage(r *http.Request) (ComparePage, error) {
	v := r.URL.Query()
	base, cand := v.Get("base"), v.Get("cand")
	if picked := list(v["run"]); base == "" && cand == "" && len(picked) > 0 {
		if len(picked) != 2 {
			return ComparePage{}, badRequest("pick two runs to compare, not %d", len(picked))
		}
		base, cand = picked[0], picked[1]
	}
	if base == "" && cand == "" {
		runs, err := s.cfg.Index.Runs(r.Context(), history.Filter{Kinds: []string{history.KindRun}, Limit: choices, Figures: []string{}})
		return ComparePage{Choices: nonNil(runs)}, err
	}
	if base == "" || cand == "" || base == cand {
		return ComparePage{}, badRequest("compare needs two different runs: base= and cand=")
	}
	b, err := s.comparable(r.Context(), base)
	if err != nil {
		return ComparePage{}, err
	}
	c, err := s.comparable(r.Context(), cand)
	if err != nil {
		return ComparePage{}, err
	}
	if !v.Has("base") && c.Created.Before(b.Created) {
		b, c = c, b
	}
	return s.compareRuns(b, c)
}

// comparable is the indexed run of dir, when it is a run (a comparison of
// sweeps, searches or experiments is cometlab compare's).
func (s *Server) comparable(ctx context.Context, dir string) (history.Run, error) {
	run, ok, err := s.cfg.Index.Get(ctx, dir)
	switch {
	case err != nil:
		return run, err
	case !ok:
		return run, notFound("%s is not in the index", dir)
	case run.Kind != history.KindRun:
		return run, badRequest("%s is a %s, not a run: compare sweeps with cometlab compare", dir, run.Kind)
	}
	return run, nil
}

// compareRuns compares two runs, or returns the comparison kept since
// neither's run.json changed.
func (s *Server) compareRuns(base, cand history.Run) (ComparePage, error) {
	key := fmt.Sprintf("%q %v %q %v", base.Dir, modTime(base.Dir), cand.Dir, modTime(cand.Dir))
	if p, ok := s.compared.get(key); ok {
		return p, nil
	}
	res, _, err := compare.Runs([]compare.SideDirs{{Dirs: []string{base.Dir}}, {Dirs: []string{cand.Dir}}}, s.cfg.Compare, s.cfg.Load)
	if err != nil {
		return ComparePage{}, httpError{http.StatusUnprocessableEntity, err}
	}
	p := ComparePage{Baseline: &base, Candidate: &cand, Verdict: res.Verdict, VerdictText: report.VerdictText(res.Verdict),
		Differences: res.Differences, Warnings: res.Warnings, Method: &res.Method}
	if len(res.Candidates) == 1 {
		p.Better, p.Worse = res.Candidates[0].Better, res.Candidates[0].Worse
	}
	key2 := report.CompareTableIDs()
	for _, row := range res.Metrics {
		if len(row.Candidates) != 1 {
			continue
		}
		c := row.Candidates[0]
		p.Rows = append(p.Rows, CompareRow{ID: row.ID, Title: row.Title, Unit: row.Unit, Better: row.Better, Key: slices.Contains(key2, row.ID) || c.Verdict == compare.Better || c.Verdict == compare.Worse,
			Baseline: row.Baseline, Candidate: c.Value, Delta: c.Delta, DeltaPct: c.DeltaPct, P: c.P,
			Verdict: c.Verdict, VerdictText: report.VerdictText(c.Verdict), Reason: c.Reason})
	}
	s.compared.put(key, p)
	return p, nil
}

// modTime is when dir's run.json last changed: a run written again into
// the same directory is compared again.
func modTime(dir string) time.Time {
	fi, err := os.Stat(filepath.Join(dir, results.RunFile))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}
