package web

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/cometlab/cometlab/internal/history"
)

// The trend plot's size (its viewBox; the page scales it) and margins, in
// SVG units.
const (
	plotW, plotH                         = 960, 380
	marginL, marginR, marginT, marginB   = 76, 24, 44, 92
	innerW, innerH                       = plotW - marginL - marginR, plotH - marginT - marginB
	colorSeries, colorLevel, colorChange = "#0969da", "#bf8700", "#cf222e"
	colorGrid, colorText, colorAxis      = "#d8dee4", "#57606a", "#8c959f"
)

// trendSVG draws a trend as plain SVG: the points in order joined by a
// line (each a link to its run, its release, time and value in its
// tooltip), intervals as whiskers, each segment's level between change
// points as a dashed line, each change point as a vertical line labelled
// with its before → after, and the release tags on the x axis where the
// release changes. Colours are attributes, not a style sheet, so that
// the plot looks the same inline and alone. It is pure.
func trendSVG(t history.Trend, d dictionary) string {
	var b strings.Builder
	n := len(t.Points)
	title := d.title(t.Figure)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" class="trend" role="img" aria-label="%s"`+
		` font-family="-apple-system,Segoe UI,Helvetica,Arial,sans-serif" font-size="12">`+"\n",
		plotW, plotH, plotW, plotH, esc(title+", series "+t.SeriesID))
	fmt.Fprintf(&b, "<title>%s — series %s, %d runs by %s</title>\n", esc(title), esc(t.SeriesID), n, esc(string(t.Order)))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", plotW, plotH)
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="%s">no points</text>`+"\n</svg>\n", plotW/2, plotH/2, colorText)
		return b.String()
	}
	lo, hi := valueRange(t)
	ticks := niceTicks(lo, hi, 5)
	lo, hi = min(lo, ticks[0]), max(hi, ticks[len(ticks)-1])
	step := float64(innerW) / float64(n)
	x := func(i int) float64 { return marginL + (float64(i)+0.5)*step }
	y := func(v float64) float64 { return marginT + (hi-v)/(hi-lo)*innerH }

	// Grid and y axis.
	for _, v := range ticks {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="1"/>`, marginL, y(v), plotW-marginR, y(v), colorGrid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle" fill="%s">%s</text>`+"\n", marginL-6, y(v), colorText, esc(d.tickText(t.Figure, v, ticks)))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`+"\n", marginT+innerH/2, colorText, esc(title))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", marginL, marginT+innerH, plotW-marginR, marginT+innerH, colorAxis)

	// Release tags on the x axis.
	lastX := math.Inf(-1)
	for _, i := range releaseTags(t) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`, x(i), marginT+innerH, x(i), marginT+innerH+6, colorAxis)
		if x(i)-lastX < 14 || t.Points[i].Release == "" {
			b.WriteString("\n")
			continue
		}
		lastX = x(i)
		fmt.Fprintf(&b, `<text transform="translate(%.1f %d) rotate(-35)" text-anchor="end" fill="%s" class="release">%s</text>`+"\n",
			x(i), marginT+innerH+18, colorText, esc(t.Points[i].Release))
	}
	first, last := t.Points[0].Created, t.Points[n-1].Created
	caption := fmt.Sprintf("%d runs by %s", n, t.Order)
	if t.Order == history.ByTime {
		caption += fmt.Sprintf(", %s … %s (UTC)", when(first), when(last))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="%s">%s</text>`+"\n", plotW-marginR, plotH-8, colorText, esc(caption))

	// Levels between change points, then the change points.
	for _, l := range levels(t) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="6 4" class="level"/>`+"\n",
			x(l.from)-step/2, y(l.mean), x(l.to-1)+step/2, y(l.mean), colorLevel)
	}
	for k, cp := range t.ChangePoints {
		if cp.Index <= 0 || cp.Index >= n {
			continue
		}
		cx := x(cp.Index) - step/2
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" stroke-dasharray="4 3" class="change"/>`+"\n",
			cx, marginT-14, cx, marginT+innerH, colorChange)
		label := fmt.Sprintf("%s → %s", d.fig(t.Figure, cp.Before), d.fig(t.Figure, cp.After))
		if cp.Before != 0 {
			label += fmt.Sprintf(" (%+.1f %%)", 100*(cp.After-cp.Before)/math.Abs(cp.Before))
		}
		anchor, dx := "start", 4.0
		if cx > plotW/2 {
			anchor, dx = "end", -4
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" fill="%s" class="change-label">%s</text>`+"\n",
			cx+dx, marginT-18+14*(k%2), anchor, colorChange, esc(label))
	}

	// The series: intervals, line, points.
	for i, p := range t.Points {
		if p.Interval != nil {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>`+"\n", x(i), y(p.Interval.Lo), x(i), y(p.Interval.Hi), colorSeries)
		}
	}
	if n > 1 {
		b.WriteString(`<polyline fill="none" stroke="` + colorSeries + `" stroke-width="1.5" stroke-opacity="0.6" points="`)
		for i, p := range t.Points {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%.1f,%.1f", x(i), y(p.Value))
		}
		b.WriteString("\"/>\n")
	}
	r := math.Max(1.5, math.Min(4, step/3))
	for i, p := range t.Points {
		tip := fmt.Sprintf("%s · %s · %s", p.Release, when(p.Created), d.fig(t.Figure, p.Value))
		fmt.Fprintf(&b, `<a href="%s"><circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" class="point"><title>%s</title></circle></a>`+"\n",
			esc(runURL(p.Dir)), x(i), y(p.Value), r, colorSeries, esc(tip))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// esc escapes text for XML (and HTML).
func esc(s string) string { return template.HTMLEscapeString(s) }

// valueRange is the smallest and largest value the plot shows (points,
// intervals, levels either side of a change), widened when they are one.
func valueRange(t history.Trend) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, p := range t.Points {
		see(p.Value)
		if p.Interval != nil {
			see(p.Interval.Lo)
			see(p.Interval.Hi)
		}
	}
	for _, cp := range t.ChangePoints {
		see(cp.Before)
		see(cp.After)
	}
	if lo > hi {
		return 0, 1
	}
	if pad := (hi - lo) * 0.05; pad > 0 {
		return lo - pad, hi + pad
	}
	pad := math.Max(math.Abs(lo)*0.05, 1)
	return lo - pad, hi + pad
}

// niceTicks are about n round values (1, 2 or 5 × 10^k apart) from the
// last at or below lo to the first at or above hi.
func niceTicks(lo, hi float64, n int) []float64 {
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Floor(lo/step) * step; v <= hi+step*1e-9 || len(out) < 2; v += step {
		out = append(out, math.Round(v/step)*step)
		if len(out) > 4*n {
			break
		}
	}
	if last := out[len(out)-1]; last < hi {
		out = append(out, last+step)
	}
	return out
}

// tickText is a tick's label: the figure's format when it tells the ticks
// apart, else enough decimals to.
func (d dictionary) tickText(figure string, v float64, ticks []float64) string {
	s := d.fig(figure, v)
	for _, o := range ticks {
		if o != v && d.fig(figure, o) == s {
			return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", v), "0"), ".")
		}
	}
	return s
}
