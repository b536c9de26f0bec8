package web

import (
	"html/template"
	"net/http"
	"net/url"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// defaultFigure is the figure the trend page shows without figure=.
const defaultFigure = "committed_tps"

// TrendPage is one figure along one series, as cometlab history trend
// gives it: the series of the newest run the filters select (series=
// chooses another), by time or by release, with its change points.
type TrendPage struct {
	Figure string        `json:"figure"`
	By     history.Order `json:"by"`
	Query  history.Query `json:"query"`
	// Trend is the series' points and change points; nil when no run the
	// filters select has the figure (Note says so).
	Trend *history.Trend `json:"trend,omitempty"`
	Note  string         `json:"note,omitempty"`
	// Others are the other series that have the figure.
	Others []SeriesLink `json:"other_series,omitempty"`
	// Plot is the trend drawn as SVG (trendSVG).
	Plot template.HTML `json:"-"`
}

// SeriesLink is a series and its trend page.
type SeriesLink struct {
	ID   string            `json:"id"`
	Key  history.SeriesKey `json:"key"`
	Runs int               `json:"runs"`
	URL  string            `json:"url"`
}

// Title is the page's title.
func (p TrendPage) Title() string { return "Trend of " + p.Figure }

// Section is the navigation's entry of the page.
func (TrendPage) Section() string { return "trend" }

// Figures are the figures to choose from: the dictionary's, runs' then
// sweeps' and searches'.
func (TrendPage) Figures() []analysis.Metric {
	var out []analysis.Metric
	for _, m := range append(analysis.Dictionary(), saturation.Dictionary()...) {
		if !m.PerPerturbation {
			out = append(out, m)
		}
	}
	return out
}

// Orders are the orders to choose from.
func (TrendPage) Orders() []history.Order { return []history.Order{history.ByTime, history.ByRelease} }

// Change is the change point at a point's index, if any.
func (p TrendPage) Change(i int) *history.ChangePoint {
	if p.Trend == nil {
		return nil
	}
	for j := range p.Trend.ChangePoints {
		if p.Trend.ChangePoints[j].Index == i {
			return &p.Trend.ChangePoints[j]
		}
	}
	return nil
}

// SVGURL is the plot alone, as an SVG file.
func (p TrendPage) SVGURL() string { return "/trend.svg?" + p.params().Encode() }

func (p TrendPage) params() url.Values {
	v := values(p.Query)
	v.Set("figure", p.Figure)
	v.Set("by", string(p.By))
	return v
}

// trendPage is the value of /trend and /api/trend.
func (s *Server) trendPage(r *http.Request) (TrendPage, error) {
	v := r.URL.Query()
	p := TrendPage{Figure: v.Get("figure"), By: history.Order(v.Get("by")), Query: readQuery(v)}
	if p.Figure == "" {
		p.Figure = defaultFigure
	}
	if p.By == "" {
		p.By = history.ByTime
	}
	if _, ok := history.Lookup(p.Figure); !ok {
		return p, history.FieldError{Field: "figure", Err: errorf("%q is not a figure of the metric dictionary", p.Figure)}
	}
	if p.By != history.ByTime && p.By != history.ByRelease {
		return p, history.FieldError{Field: "by", Err: errorf("%q: want time or release", p.By)}
	}
	q := p.Query
	if len(q.Status) == 0 {
		q.Status = []string{results.StatusComplete}
	}
	f, err := q.Filter(s.cfg.Now())
	if err != nil {
		return p, err
	}
	f.Figures = []string{p.Figure}
	runs, err := s.cfg.Index.Runs(r.Context(), f)
	if err != nil {
		return p, err
	}
	t, others, ok := history.TrendOf(runs, p.Figure, p.By, s.cfg.Detect)
	if !ok {
		p.Note = "no run the filters select has " + p.Figure
		return p, nil
	}
	p.Trend = &t
	p.Plot = template.HTML(trendSVG(t, s.dict))
	for _, g := range others {
		v := p.params()
		v.Set("series", g.ID)
		p.Others = append(p.Others, SeriesLink{ID: g.ID, Key: g.Key, Runs: len(g.Runs), URL: "/trend?" + v.Encode()})
	}
	return p, nil
}

// trendSVG serves the trend's plot alone: /trend.svg with the trend
// page's parameters.
func (s *Server) trendSVG(w http.ResponseWriter, r *http.Request) {
	p, err := s.trendPage(r)
	if err != nil {
		s.fail(w, r, true, err)
		return
	}
	if p.Trend == nil {
		s.fail(w, r, true, notFound("%s", p.Note))
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write([]byte(p.Plot))
}

// releaseTags are the indexes of the points where the release changes
// (the first point included): the release tags of the plot's axis.
func releaseTags(t history.Trend) []int {
	var out []int
	for i, p := range t.Points {
		if i == 0 || p.Release != t.Points[i-1].Release {
			out = append(out, i)
		}
	}
	return out
}

// levels are the series' segments between change points, each with its
// mean: [from, to) and level.
type level struct {
	from, to int
	mean     float64
}

func levels(t history.Trend) []level {
	cuts := []int{0}
	for _, cp := range t.ChangePoints {
		cuts = append(cuts, cp.Index)
	}
	cuts = append(cuts, len(t.Points))
	slices.Sort(cuts)
	var out []level
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if b <= a {
			continue
		}
		sum := 0.0
		for _, p := range t.Points[a:b] {
			sum += p.Value
		}
		out = append(out, level{a, b, sum / float64(b-a)})
	}
	return out
}
