package series

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// forked is a safety check that found two nodes disagreeing.
var forked = &analysis.Safety{Checked: true, Heights: 9, DisagreeingHeights: 1,
	Disagreements: []analysis.Disagreement{{Height: 7, Hash: "app", Majority: "A", Agreed: []string{"v1", "v2", "v3"},
		Differing: []analysis.NodeHash{{Node: "v4", Hash: "B"}}}}}

func busyOutcome(pct float64) Outcome {
	return Outcome{Status: results.StatusComplete, Evidence: &saturation.Evidence{HostBusyPct: &pct}}
}

// TestSeriesDisturbed: the one disturbance policy. A disturbed run is
// measured again while the budget (a fifth of the planned runs, at least
// 2) lasts; a re-measure disturbed again, or one past the budget, is kept.
func TestSeriesDisturbed(t *testing.T) {
	quiet, busy := busyOutcome(3), busyOutcome(40)
	for _, tt := range []struct {
		name    string
		planned int
		runs    []Outcome
		again   []bool
		want    []string // the action for each, "" for none
	}{
		{"quiet", 10, []Outcome{quiet, quiet}, []bool{false, false}, []string{"", ""}},
		{"budget of 2", 4, []Outcome{busy, busy, busy}, []bool{false, false, false},
			[]string{results.ActionRunAgain, results.ActionRunAgain, results.ActionKeptOver}},
		{"a fifth of 15", 15, []Outcome{busy, busy, busy, busy}, []bool{false, false, false, false},
			[]string{results.ActionRunAgain, results.ActionRunAgain, results.ActionRunAgain, results.ActionKeptOver}},
		{"busy again", 10, []Outcome{busy, busy}, []bool{false, true}, []string{results.ActionRunAgain, results.ActionKept}},
		{"no evidence", 10, []Outcome{{Status: results.StatusFailed}}, []bool{false}, []string{""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSeries(Env{}, t.TempDir(), results.ModeFresh, 0, saturation.DefaultCriterion(), tt.planned)
			for i, o := range tt.runs {
				d := s.disturbed([]Outcome{o}, nil, tt.again[i])
				got := ""
				if d != nil {
					got = d.Action
					if !strings.Contains(d.Why, "40 % of the host's CPU went to other work") {
						t.Errorf("run %d: why %q", i, d.Why)
					}
				}
				if got != tt.want[i] {
					t.Errorf("run %d: action %q, want %q", i, got, tt.want[i])
				}
			}
		})
	}
}

// TestSweepCellDisturbed: a sweep cell whose host was busy runs again,
// its first run kept as DIR.disturbed and the disturbance recorded.
func TestSweepCellDisturbed(t *testing.T) {
	dir := t.TempDir()
	var calls int
	s := newSeries(Env{}, dir, results.ModeFresh, 0, saturation.DefaultCriterion(), 4)
	s.exec = func(_ context.Context, _ manifest.Resolved, d string) Outcome {
		calls++
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if calls == 1 {
			return busyOutcome(35)
		}
		return busyOutcome(2)
	}
	rec := saturation.SweepRecord{ID: "x", Cells: []saturation.SweepCell{{SweepCell: results.SweepCell{ID: "c1-r200", Dir: "cells/c1-r200-0"}}}}
	if err := sweepCell(context.Background(), s, dir, &rec, &rec.Cells[0], manifest.Resolved{}, "1/1"); err != nil {
		t.Fatal(err)
	}
	c := rec.Cells[0]
	if calls != 2 || c.Disturbed == nil || c.Disturbed.Action != results.ActionRunAgain || c.Status != results.StatusComplete {
		t.Errorf("%d runs, cell %+v", calls, c.SweepCell)
	}
	if _, err := os.Stat(filepath.Join(dir, "cells", "c1-r200-0.disturbed")); err != nil {
		t.Errorf("the disturbed run was not kept aside: %v", err)
	}
	var saved saturation.SweepRecord
	if err := results.ReadJSON(filepath.Join(dir, results.SweepFile), &saved); err != nil || saved.Cells[0].Disturbed == nil {
		t.Errorf("sweep.json: %v, %+v", err, saved.Cells)
	}
}

// TestSeriesSafety: one safety verdict over a series' runs, whatever
// kind; a run without a summary is not judged.
func TestSeriesSafety(t *testing.T) {
	dir := t.TempDir()
	for name, sum := range map[string]analysis.Summary{"bad": {Safety: forked}, "good": {Safety: &analysis.Safety{Checked: true, Heights: 9}}} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSON(filepath.Join(dir, name, results.SummaryFile), sum); err != nil {
			t.Fatal(err)
		}
	}
	if err := Safety(dir, []string{"good", "none", ""}); err != nil {
		t.Errorf("healthy series: %v", err)
	}
	err := Safety(dir, []string{"good", "bad", "none"})
	if code, _ := exitcode.Of(err); !errors.Is(err, experiment.ErrUnsafe) || code != exitcode.Unsafe || !strings.Contains(err.Error(), "in 1 run(s): bad:") {
		t.Errorf("unsafe series: %v (code %d)", err, code)
	}
	rec := saturation.SearchRecord{Steps: []saturation.SearchStep{{Dir: "good"}, {Dir: "bad"}}}
	if err := Safety(dir, rec.Dirs()); !errors.Is(err, experiment.ErrUnsafe) {
		t.Errorf("unsafe search: %v", err)
	}
}

// TestABUnsafe: an A/B experiment one of whose runs broke safety exits 5,
// before any verdict.
func TestABUnsafe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ab")
	f := &fakeRounds{t: t}
	l, err := newAB(abTestOptions(t, dir, "1"))
	if err != nil {
		t.Fatal(err)
	}
	l.run = func(ctx context.Context, m manifest.Resolved, d string) Outcome {
		o := f.run(ctx, m, d)
		if strings.HasSuffix(d, "cand") {
			if err := results.WriteJSON(filepath.Join(d, results.SummaryFile), analysis.Summary{Safety: forked}); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	res, err := l.do(context.Background())
	if code, _ := exitcode.Of(err); code != exitcode.Unsafe || !res.Finished {
		t.Errorf("error %v (code %d, finished %v), want exit 5 with the record written", err, code, res.Finished)
	}
}

// TestSearchFor: a search's settings the user left unset come from the
// manifest and the method's defaults.
func TestSearchFor(t *testing.T) {
	def := manifest.Default()
	m, err := def.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	base := saturation.DefaultSearch(1, 1)
	got, err := SearchFor(m, base, SearchGiven{})
	want := saturation.DefaultSearch(m.Load.Rate, m.Load.Duration.Seconds())
	if err != nil || got.Start != m.Load.Rate || got.DurationS != m.Load.Duration.Seconds() || got.ProbeDurationS != want.ProbeDurationS || got.MinRate > got.Start {
		t.Errorf("defaults: %+v, %v", got, err)
	}
	given := base
	given.Start, given.ProbeDurationS, given.MinRate = 800, 0, 500
	got, err = SearchFor(m, given, SearchGiven{Start: true, Probe: true, MinRate: true})
	if err != nil || got.Start != 800 || got.ProbeDurationS != 0 || got.MinRate != 500 {
		t.Errorf("given: %+v, %v", got, err)
	}
	given.MinRate = -1
	if _, err := SearchFor(m, given, SearchGiven{Start: true, MinRate: true}); err == nil {
		t.Error("an invalid search was taken")
	} else if code, _ := exitcode.Of(err); code != exitcode.Usage {
		t.Errorf("code %d, want 2", code)
	}
}

// TestSeriesRemeasureBound: Env.MaxRemeasures replaces the budget,
// and a negative one measures nothing again.
func TestSeriesRemeasureBound(t *testing.T) {
	busy := busyOutcome(40)
	for _, tt := range []struct {
		max  int
		want string
	}{{-1, results.ActionKeptOver}, {1, results.ActionRunAgain}} {
		s := newSeries(Env{MaxRemeasures: tt.max}, t.TempDir(), results.ModeFresh, 0, saturation.DefaultCriterion(), 50)
		if d := s.disturbed([]Outcome{busy}, nil, false); d == nil || d.Action != tt.want {
			t.Errorf("max %d: %+v, want %s", tt.max, d, tt.want)
		}
		if tt.max == 1 {
			if d := s.disturbed([]Outcome{busy}, nil, false); d == nil || d.Action != results.ActionKeptOver {
				t.Errorf("max 1, second: %+v, want kept", d)
			}
		}
	}
}
