package web

import (
	"fmt"
	"html/template"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/saturation"
)

// funcs are the templates' functions; d titles and formats the figures.
func funcs(d dictionary) template.FuncMap {
	return template.FuncMap{
		"fig":      d.fig,
		"figOpt":   d.figOpt,
		"title":    d.title,
		"when":     when,
		"runURL":   runURL,
		"trendURL": trendURL,
		"shortDir": shortDir,
		"pct":      pctText,
		"pval":     pText,
		"num":      history.Num,
		"has":      slices.Contains[[]string],
		"nodes":    nodesText,
		"release":  releaseText,
		"kb":       func(n int64) string { return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) },
	}
}

// dictionary is the metric dictionary by id: runs' (analysis), sweeps'
// and searches' (saturation). Made once: analysis.Lookup builds the
// dictionary at every call, and a page formats thousands of figures.
type dictionary map[string]analysis.Metric

func newDictionary() dictionary {
	d := dictionary{}
	for _, m := range append(analysis.Dictionary(), saturation.Dictionary()...) {
		if _, ok := d[m.ID]; !ok {
			d[m.ID] = m
		}
	}
	return d
}

// metric is the dictionary entry of a figure, or one made of its id.
func (d dictionary) metric(id string) analysis.Metric {
	if m, ok := d[id]; ok {
		return m
	}
	return analysis.Metric{ID: id, Title: id, Better: analysis.Neutral}
}

// fig formats a value of the figure id as report.md does.
func (d dictionary) fig(id string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	if m, ok := d[id]; ok {
		return report.FormatValue(m, v)
	}
	return history.Num(v)
}

// figOpt is fig of *v, "–" for nil.
func (d dictionary) figOpt(id string, v *float64) string {
	if v == nil {
		return "–"
	}
	return d.fig(id, *v)
}

// title is a figure's title with its unit: "Block latency p50 (ms)".
func (d dictionary) title(id string) string {
	m := d.metric(id)
	switch m.Unit {
	case "", analysis.UnitRatio:
		return m.Title
	}
	return m.Title + " (" + m.Unit + ")"
}

// when is a time as the pages show it, UTC to the minute.
func when(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// runURL is the page of the run of the directory dir.
func runURL(dir string) string { return "/run?" + url.Values{"dir": {dir}}.Encode() }

// trendURL is the page of the figure's trend along the series (an id).
func trendURL(figure, series string) string {
	return "/trend?" + url.Values{"figure": {figure}, "series": {series}}.Encode()
}

// shortDir is the last two elements of dir: enough to tell runs apart in
// a table (the full path is the link's title).
func shortDir(dir string) string {
	parent, base := filepath.Split(filepath.Clean(dir))
	if p := filepath.Base(parent); parent != "" && p != "/" && p != "." {
		return p + "/" + base
	}
	return base
}

// pctText is a relative change in %, signed: "+4.2 %"; "–" for nil.
func pctText(p *float64) string {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return "–"
	}
	return fmt.Sprintf("%+.1f %%", *p)
}

// pText is a p-value: "< 0.0001" or four decimals.
func pText(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// nodesText is a run's testnet: validators, + full nodes.
func nodesText(r history.Run) string {
	s := strconv.Itoa(r.Validators)
	if r.FullNodes > 0 {
		s += "+" + strconv.Itoa(r.FullNodes)
	}
	return s
}

// releaseText is a run's release, and its label when it differs.
func releaseText(r history.Run) string {
	if r.Label != "" && r.Label != r.Release {
		return strings.TrimSpace(r.Release + " (" + r.Label + ")")
	}
	return r.Release
}
