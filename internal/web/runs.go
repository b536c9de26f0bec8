package web

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// listFigures are the figures the runs list shows, as cometlab history's
// table does.
var listFigures = []string{"committed_tps", "block_latency_p50_ms"}

// statuses are the statuses a run or series can have, for the filters.
var statuses = []string{results.StatusComplete, results.StatusPartial, results.StatusFailed, results.StatusRunning, "interrupted"}

// defaultLimit is how many runs the list shows without limit=.
const defaultLimit = 100

// RunsPage is the runs list: the runs the query selects, newest first.
type RunsPage struct {
	Query history.Query `json:"query"`
	// Limit is the most runs listed (0: all); More says there are more.
	Limit   int           `json:"limit"`
	More    bool          `json:"more"`
	Figures []string      `json:"figures"` // the figures each run carries
	Runs    []history.Run `json:"runs"`
}

// Title is the page's title.
func (RunsPage) Title() string { return "Runs" }

// Section is the navigation's entry of the page.
func (RunsPage) Section() string { return "runs" }

// Kinds and Statuses are the filters' choices.
func (RunsPage) Kinds() []string    { return history.Kinds() }
func (RunsPage) Statuses() []string { return statuses }

// AllURL is the list of every run the query selects.
func (p RunsPage) AllURL() string {
	v := values(p.Query)
	v.Set("limit", "0")
	return "/runs?" + v.Encode()
}

// runsPage is the value of /runs and /api/runs.
func (s *Server) runsPage(r *http.Request) (RunsPage, error) {
	v := r.URL.Query()
	q := readQuery(v)
	limit, err := readLimit(v, defaultLimit)
	if err != nil {
		return RunsPage{}, err
	}
	f, err := q.Filter(s.cfg.Now())
	if err != nil {
		return RunsPage{}, err
	}
	f.Figures = listFigures
	if limit > 0 {
		f.Limit = limit + 1
	}
	runs, err := s.cfg.Index.Runs(r.Context(), f)
	if err != nil {
		return RunsPage{}, err
	}
	p := RunsPage{Query: q, Limit: limit, Figures: listFigures, Runs: nonNil(runs)}
	if limit > 0 && len(runs) > limit {
		p.Runs, p.More = runs[:limit], true
	}
	return p, nil
}

// FigureRow is one figure of a run, titled and formatted by the
// dictionary.
type FigureRow struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Unit     string            `json:"unit,omitempty"`
	Better   string            `json:"better,omitempty"`
	Value    float64           `json:"value"`
	Text     string            `json:"text"` // Value as report.md writes it
	Interval *history.Interval `json:"interval,omitempty"`
	// IntervalText is the interval as ± half its width, "" without one.
	IntervalText string `json:"interval_text,omitempty"`
}

// FigureGroup is the figures of one dictionary group.
type FigureGroup struct {
	Group   string      `json:"group"`
	Figures []FigureRow `json:"figures"`
}

// RunPage is one indexed directory: its identity, key figures, every
// figure by group, its report and files, and a series' runs.
type RunPage struct {
	Run    history.Run `json:"run"`
	Series string      `json:"series_id"`
	Key    []FigureRow `json:"key_figures"`
	// Groups are every figure, by dictionary group in report order;
	// figures the dictionary does not know are in the group "other".
	Groups []FigureGroup `json:"figure_groups"`
	// Report is the directory's report page (report.html, sweep.html, …);
	// nil when it has none, NoReport then says which file is missing.
	Report   *FileLink  `json:"report,omitempty"`
	NoReport string     `json:"no_report,omitempty"`
	Files    []FileLink `json:"files"`
	// Runs are the runs of a sweep, search or experiment, newest first.
	Runs []history.Run `json:"runs,omitempty"`
}

// Title is the page's title.
func (p RunPage) Title() string { return p.Run.Kind + " " + shortDir(p.Run.Dir) }

// Section is the navigation's entry of the page.
func (RunPage) Section() string { return "runs" }

// ListFigures are the figures of Runs.
func (RunPage) ListFigures() []string { return listFigures }

// keyFigures are the figures a run's page shows first: the gate's
// headline figures, with the accounting before them.
func keyFigures() []string {
	return append([]string{"committed_txs", "missing_txs"}, append(history.DefaultGateFigures(), "recommended_tps")...)
}

// reportFiles are the report page of each kind of directory.
var reportFiles = map[string]string{
	history.KindRun: results.ReportHTML, history.KindSweep: results.SweepHTMLFile, history.KindSaturate: results.SaturateHTMLFile,
	history.KindAB: results.CompareHTML, history.KindQA: qaReport,
}

// qaReport is a QA directory's report page.
const qaReport = "qa.html"

// runPage is the value of /run?dir=DIR and /api/run?dir=DIR.
func (s *Server) runPage(r *http.Request) (RunPage, error) {
	dir := r.URL.Query().Get("dir")
	if dir == "" {
		return RunPage{}, badRequest("no dir= given: the run's directory, as the runs list links it")
	}
	run, ok, err := s.cfg.Index.Get(r.Context(), dir)
	if err != nil {
		return RunPage{}, err
	}
	if !ok {
		return RunPage{}, notFound("%s is not in the index", dir)
	}
	p := RunPage{Run: run, Series: run.Series().ID()}
	for _, id := range keyFigures() {
		if f, ok := run.Figures[id]; ok {
			p.Key = append(p.Key, s.dict.figureRow(id, f))
		}
	}
	p.Groups = s.dict.figureGroups(run.Figures)
	if p.Files, err = listFiles(run.Dir); err != nil {
		p.NoReport = err.Error()
	}
	if name := reportFiles[run.Kind]; name != "" {
		if i := slices.IndexFunc(p.Files, func(f FileLink) bool { return f.Name == name }); i >= 0 {
			p.Report = &p.Files[i]
		} else if p.NoReport == "" {
			p.NoReport = "no " + name + " in this directory"
		}
	}
	if run.Kind != history.KindRun {
		if p.Runs, err = s.cfg.Index.Runs(r.Context(), history.Filter{Parent: run.Dir, Figures: listFigures}); err != nil {
			return RunPage{}, err
		}
	}
	return p, nil
}

func (d dictionary) figureRow(id string, f history.Figure) FigureRow {
	m := d.metric(id)
	better := ""
	if m.Better != 0 {
		better = m.Better.String()
	}
	row := FigureRow{ID: id, Title: m.Title, Unit: m.Unit, Better: better, Value: f.Value, Text: d.fig(id, f.Value), Interval: f.Interval}
	if f.Interval != nil {
		row.IntervalText = "± " + d.fig(id, (f.Interval.Hi-f.Interval.Lo)/2)
	}
	return row
}

// figureGroups are figs by dictionary group, each in dictionary order;
// the ids it does not know last, in the group "other", by id.
func (d dictionary) figureGroups(figs map[string]history.Figure) []FigureGroup {
	var out []FigureGroup
	seen := map[string]bool{}
	add := func(group, id string) {
		f, ok := figs[id]
		if !ok || seen[id] {
			return
		}
		seen[id] = true
		i := slices.IndexFunc(out, func(g FigureGroup) bool { return g.Group == group })
		if i < 0 {
			i = len(out)
			out = append(out, FigureGroup{Group: group})
		}
		out[i].Figures = append(out[i].Figures, d.figureRow(id, f))
	}
	dict := append(analysis.Dictionary(), saturation.Dictionary()...)
	for _, g := range analysis.Groups() {
		for _, m := range dict {
			if m.Group == g {
				add(g, m.ID)
			}
		}
	}
	var other []string
	for id := range figs {
		if !seen[id] {
			other = append(other, id)
		}
	}
	slices.Sort(other)
	for _, id := range other {
		add("other", id)
	}
	return out
}

// nonNil is s, or an empty slice for nil (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// pageURL is path with the parameters v.
func pageURL(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}
