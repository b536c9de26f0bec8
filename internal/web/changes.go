package web

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results"
)

// ChangesPage is every change point of the judged figures of every
// series the filters select, the newest first and, at one run, the
// largest first.
type ChangesPage struct {
	Query history.Query `json:"query"`
	By    history.Order `json:"by"`
	// All says every judged figure was sought (history.JudgedFigures),
	// not only the gate's (history.DefaultGateFigures); Figures are them.
	All     bool     `json:"all_figures"`
	Figures []string `json:"figures"`
	// Series and Runs count what was searched; Detected is false when the
	// server has no change-point method.
	Series   int      `json:"series"`
	Runs     int      `json:"runs"`
	Detected bool     `json:"detected"`
	Changes  []Change `json:"changes"`
}

// Change is one change point of one figure of one series.
type Change struct {
	SeriesID string            `json:"series_id"`
	Series   history.SeriesKey `json:"series"`
	Figure   string            `json:"figure"`
	Title    string            `json:"title"`
	Unit     string            `json:"unit,omitempty"`
	// Dir is the run where the new level starts, Index its place in the
	// series (of Points).
	Dir     string    `json:"dir"`
	Created time.Time `json:"created"`
	Release string    `json:"release,omitempty"`
	Index   int       `json:"index"`
	Points  int       `json:"points"`
	Before  float64   `json:"before"`
	After   float64   `json:"after"`
	// DeltaPct is 100·(After − Before)/|Before|; nil when Before is 0.
	DeltaPct *float64 `json:"delta_pct"`
	P        float64  `json:"p"`
	// Direction is worse or better by the dictionary, "" for a neutral
	// figure.
	Direction string `json:"direction,omitempty"`
	TrendURL  string `json:"trend_url"`
}

// Title is the page's title.
func (ChangesPage) Title() string { return "Change points" }

// Section is the navigation's entry of the page.
func (ChangesPage) Section() string { return "changes" }

// changesPage is the value of /changes and /api/changes: the same
// filters as the runs list (complete runs unless status= says), by= the
// order, figures=all for every judged figure.
func (s *Server) changesPage(r *http.Request) (ChangesPage, error) {
	v := r.URL.Query()
	p := ChangesPage{Query: readQuery(v), By: history.Order(v.Get("by")), All: v.Get("figures") == "all", Detected: s.cfg.Detect != nil, Changes: []Change{}}
	if p.By == "" {
		p.By = history.ByTime
	}
	if p.By != history.ByTime && p.By != history.ByRelease {
		return p, history.FieldError{Field: "by", Err: errorf("%q: want time or release", p.By)}
	}
	p.Figures = history.DefaultGateFigures()
	if p.All {
		p.Figures = history.JudgedFigures()
	}
	q := p.Query
	if len(q.Status) == 0 {
		q.Status = []string{results.StatusComplete}
	}
	f, err := q.Filter(s.cfg.Now())
	if err != nil {
		return p, err
	}
	f.Figures = p.Figures
	gen, err := s.cfg.Index.Generation(r.Context())
	if err != nil {
		return p, err
	}
	key := fmt.Sprintf("%d %s %+v", gen, p.By, f)
	if c, ok := s.changes.get(key); ok {
		c.Query = p.Query
		return c, nil
	}
	runs, err := s.cfg.Index.Runs(r.Context(), f)
	if err != nil {
		return p, err
	}
	defer func() { s.changes.put(key, p) }()
	groups := history.Groups(runs)
	p.Series, p.Runs = len(groups), len(runs)
	if s.cfg.Detect == nil {
		return p, nil
	}
	for _, g := range groups {
		for _, fig := range p.Figures {
			p.Changes = append(p.Changes, s.dict.changesOf(history.MakeTrend(g.Runs, fig, p.By, s.cfg.Detect))...)
		}
	}
	slices.SortStableFunc(p.Changes, func(a, b Change) int {
		return cmp.Or(b.Created.Compare(a.Created), cmp.Compare(absPct(b), absPct(a)), cmp.Compare(a.SeriesID, b.SeriesID), cmp.Compare(a.Figure, b.Figure))
	})
	return p, nil
}

// changesOf are the change points of a trend.
func (d dictionary) changesOf(t history.Trend) []Change {
	var out []Change
	m := d.metric(t.Figure)
	for _, cp := range t.ChangePoints {
		if cp.Index < 0 || cp.Index >= len(t.Points) {
			continue
		}
		pt := t.Points[cp.Index]
		c := Change{SeriesID: t.SeriesID, Series: t.Series, Figure: t.Figure, Title: m.Title, Unit: m.Unit,
			Dir: pt.Dir, Created: pt.Created, Release: pt.Release, Index: cp.Index, Points: len(t.Points),
			Before: cp.Before, After: cp.After, P: cp.P, TrendURL: trendURL(t.Figure, t.SeriesID) + "&by=" + string(t.Order)}
		if cp.Before != 0 {
			pct := 100 * (cp.After - cp.Before) / math.Abs(cp.Before)
			c.DeltaPct = &pct
		}
		if m.Better == analysis.HigherIsBetter || m.Better == analysis.LowerIsBetter {
			c.Direction = "better"
			if (m.Better == analysis.HigherIsBetter) != (cp.After > cp.Before) {
				c.Direction = "worse"
			}
		}
		out = append(out, c)
	}
	return out
}

// absPct is |Δ %| of a change, 0 when it has none.
func absPct(c Change) float64 {
	if c.DeltaPct == nil {
		return 0
	}
	return math.Abs(*c.DeltaPct)
}

// QAPage is the QA method's directories, newest first, each with its
// report (qa.html).
type QAPage struct {
	Runs []QARun `json:"runs"`
}

// QARun is one QA directory and its report, nil when it has none.
type QARun struct {
	Run    history.Run `json:"run"`
	Report *FileLink   `json:"report,omitempty"`
}

// Title is the page's title.
func (QAPage) Title() string { return "QA reports" }

// Section is the navigation's entry of the page.
func (QAPage) Section() string { return "qa" }

// qaPage is the value of /qa and /api/qa: the index's directories of kind
// qa.
func (s *Server) qaPage(r *http.Request) (QAPage, error) {
	runs, err := s.cfg.Index.Runs(r.Context(), history.Filter{Kinds: []string{history.KindQA}, Figures: []string{}})
	if err != nil {
		return QAPage{}, err
	}
	p := QAPage{Runs: []QARun{}}
	for _, run := range runs {
		q := QARun{Run: run}
		if files, err := listFiles(run.Dir); err == nil {
			if i := slices.IndexFunc(files, func(f FileLink) bool { return f.Name == qaReport }); i >= 0 {
				q.Report = &files[i]
			}
		}
		p.Runs = append(p.Runs, q)
	}
	return p, nil
}
