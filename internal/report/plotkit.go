package report

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// noData is the error of a plot that has nothing to draw; its text is the
// reason, which the report gives instead of the plot.
type noData string

func (e noData) Error() string { return string(e) }

// nodeColor returns the colour of the i-th node: the Tableau 10 palette
// without its red, which marks averages.
func nodeColor(i int) color.NRGBA {
	return nodePalette[i%nodeColors]
}

// nodePalette is nodeColor's colours; nodeColors how many.
var nodePalette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff},
	{0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

const nodeColors = 9

// lighter mixes c with white: f = 0 is c, 1 is white.
func lighter(c color.NRGBA, f float64) color.NRGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*f + 0.5) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

var (
	averageColor = color.NRGBA{0xd6, 0x27, 0x28, 0xff} // the seeds' red dashed average
	loadColor    = color.NRGBA{0xe8, 0xee, 0xf6, 0xff}
	dashes       = []vg.Length{vg.Points(6), vg.Points(4)}
)

// maxLegendNodes is how many nodes get a legend entry of their own.
const maxLegendNodes = 12

// chart is a gonum plot in the report's style: titled, readable ticks, a
// grid, and a legend to the right of the data.
type chart struct {
	p          *plot.Plot
	grid       *plotter.Grid
	ymin, ymax float64     // data range seen, for the default y range
	yset       bool        // the y range was set: render keeps it
	inside     bool        // the legend goes inside the data area, bottom right
	entries    int         // legend entries
	nodes      int         // node entries in the legend
	hidden     int         // nodes left out of the legend
	marks      *eventMarks // the run's node events, drawn by render over the data
}

// add adds a legend entry.
func (c *chart) add(name string, thumbs ...plot.Thumbnailer) {
	c.p.Legend.Add(name, thumbs...)
	c.entries++
}

func newChart(title, xlabel, ylabel string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.X.Tick.Marker = plot.TickerFunc(niceTicks)
	p.Y.Tick.Marker = plot.TickerFunc(niceTicks)
	c := &chart{p: p, ymin: math.Inf(1), ymax: math.Inf(-1), grid: plotter.NewGrid()}
	p.Add(c.grid)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.Padding = vg.Points(2)
	return c
}

// see widens the y range seen by the values ys.
func (c *chart) see(ys ...float64) {
	for _, y := range ys {
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			c.ymin, c.ymax = min(c.ymin, y), max(c.ymax, y)
		}
	}
}

// line adds a line through (xs, ys), broken where a y is NaN, and returns
// a thumbnail for the legend.
func (c *chart) line(xs, ys []float64, col color.Color, width float64, dashed bool) plot.Thumbnailer {
	sty := draw.LineStyle{Color: col, Width: vg.Points(width)}
	if dashed {
		sty.Dashes = dashes
	}
	var seg plotter.XYs
	flush := func() {
		if len(seg) > 0 {
			l := &plotter.Line{XYs: seg, LineStyle: sty}
			if len(seg) == 1 { // a lone sample still shows
				c.p.Add(&plotter.Scatter{XYs: seg, GlyphStyle: draw.GlyphStyle{Color: col, Radius: vg.Points(width), Shape: draw.CircleGlyph{}}})
			}
			c.p.Add(l)
		}
		seg = nil
	}
	for i, x := range xs {
		if math.IsNaN(ys[i]) {
			flush()
			continue
		}
		seg = append(seg, plotter.XY{X: x, Y: ys[i]})
	}
	flush()
	c.see(ys...)
	return &plotter.Line{LineStyle: sty}
}

// nodeLine adds node i's line and its legend entry (the first
// maxLegendNodes nodes only).
func (c *chart) nodeLine(name string, i int, xs, ys []float64) {
	th := c.line(xs, ys, nodeColor(i), 1.2, false)
	c.nodeEntry(name, th)
}

func (c *chart) nodeEntry(name string, th plot.Thumbnailer) {
	if c.nodes < maxLegendNodes {
		c.add(name, th)
		c.nodes++
		return
	}
	c.hidden++
}

// average adds the dashed red average line.
func (c *chart) average(label string, xs, ys []float64) {
	th := c.line(xs, ys, averageColor, 1.8, true)
	c.add(label, th)
}

// hline adds a horizontal dashed line at y across [x0, x1].
func (c *chart) hline(label string, y, x0, x1 float64, col color.Color, dash bool) {
	th := c.line([]float64{x0, x1}, []float64{y, y}, col, 1.5, dash)
	if label != "" {
		c.add(label, th)
	}
}

// shade is a plotter filling the band x0 ≤ x ≤ x1 over the whole height
// of the data area: the load window.
type shade struct {
	x0, x1 float64
	col    color.Color
}

// Plot implements plot.Plotter.
func (s shade) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	a, b := max(trX(s.x0), c.Min.X), min(trX(s.x1), c.Max.X)
	if b <= a {
		return
	}
	c.FillPolygon(s.col, []vg.Point{{X: a, Y: c.Min.Y}, {X: b, Y: c.Min.Y}, {X: b, Y: c.Max.Y}, {X: a, Y: c.Max.Y}})
}

// Thumbnail implements plot.Thumbnailer.
func (s shade) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.col, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// loadWindow shades [0, dur] s (drawn under everything added after it).
func (c *chart) loadWindow(dur float64) {
	if dur <= 0 {
		return
	}
	s := shade{x0: 0, x1: dur, col: loadColor}
	c.p.Add(s)
	c.add("load", s)
}

// yrange sets the y range, which render then keeps.
func (c *chart) yrange(lo, hi float64) {
	c.p.Y.Min, c.p.Y.Max, c.yset = lo, hi, true
}

// render draws the chart as a width × height PNG with the legend to the
// right of the data area. The x range must be set; the y range is
// [0 or the lowest value, the highest value + 8 %] unless set by yrange.
func (c *chart) render(width, height int) ([]byte, error) {
	width, height = plotSize(width, height)
	p := c.p
	for _, e := range addMarks(p, c.marks) {
		c.add(e.name, e.thumb)
	}
	if c.hidden > 0 {
		c.add(fmt.Sprintf("… %d more nodes", c.hidden))
	}
	if math.IsInf(c.ymin, 1) {
		c.ymin, c.ymax = 0, 1
	}
	if !c.yset {
		lo := min(0, c.ymin)
		hi := c.ymax + (c.ymax-lo)*0.08
		if hi <= lo {
			hi = lo + 1
		}
		p.Y.Min, p.Y.Max = lo, hi
	}
	wPt := vg.Length(width) * vg.Inch / plotDPI
	hPt := vg.Length(height) * vg.Inch / plotDPI
	cv := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(plotDPI))
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	legend := p.Legend
	if c.inside {
		// The bottom right of a CDF is mostly empty: the legend goes
		// there, on a white box over whatever it covers.
		p.Legend = plot.NewLegend()
		area := draw.Crop(dc, vg.Points(4), -vg.Points(10), vg.Points(2), -vg.Points(2))
		p.Draw(area)
		data := p.DataCanvas(area)
		legend.Top, legend.Left = false, false
		inner := draw.Crop(data, 0, -vg.Points(10), vg.Points(10), 0)
		size := legend.Rectangle(inner).Size()
		lo := vg.Point{X: inner.Max.X - size.X - vg.Points(4), Y: inner.Min.Y - vg.Points(4)}
		hi := vg.Point{X: inner.Max.X + vg.Points(4), Y: inner.Min.Y + size.Y + vg.Points(4)}
		box := []vg.Point{lo, {X: hi.X, Y: lo.Y}, hi, {X: lo.X, Y: hi.Y}}
		data.FillPolygon(color.NRGBA{255, 255, 255, 235}, box)
		data.StrokeLines(draw.LineStyle{Color: color.NRGBA{0xbb, 0xbb, 0xbb, 0xff}, Width: vg.Points(0.5)}, append(box, box[0]))
		legend.Draw(inner)
		p.Legend = legend
		return encodePNG(cv)
	}
	p.Legend = plot.NewLegend()
	area := dc
	var lw vg.Length
	if c.entries > 0 {
		lw = legend.Rectangle(dc).Size().X + vg.Points(16)
		area = draw.Crop(dc, vg.Points(4), -lw, vg.Points(2), -vg.Points(2))
	} else {
		area = draw.Crop(dc, vg.Points(4), -vg.Points(10), vg.Points(2), -vg.Points(2))
	}
	p.Draw(area)
	if lw > 0 {
		data := p.DataCanvas(area)
		lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + vg.Points(10), Y: data.Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: data.Max.Y},
		}}
		legend.Draw(lc)
	}
	p.Legend = legend
	return encodePNG(cv)
}

func encodePNG(cv *vgimg.Canvas) ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, cv.Image()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Event marks: every time-series plot shows the run's node events, a
// shaded band for each perturbation's down period and a labelled vertical
// line for each instant (a node that exited on its own, a start, a wipe).
// A run without events has no marks and draws exactly as before.

var (
	downColor    = color.NRGBA{0xff, 0x7f, 0x0e, 0x40} // translucent orange over the data area
	exitColor    = color.NRGBA{0x20, 0x20, 0x20, 0xff}
	instantColor = color.NRGBA{0x7f, 0x7f, 0x7f, 0xff}
	markText     = color.NRGBA{0x40, 0x40, 0x40, 0xff}
)

// maxMarkLabels is how many marks get a text label; beyond it (a long
// rotation run) the bands and lines are drawn unlabelled.
const maxMarkLabels = 16

// markBand is a down period, x in s since the load start.
type markBand struct {
	x0, x1 float64
	label  string
}

// markLine is an instant, x in s since the load start.
type markLine struct {
	x     float64
	label string
	exit  bool // a process exit outside every perturbation
}

// eventMarks are a run's marks in one plot's x coordinates.
type eventMarks struct {
	bands []markBand
	lines []markLine
}

// newEventMarks returns the marks of the events, x = seconds since start
// (Unix ns); nil when there is nothing to mark. loadEnd is the load's end
// (Unix ns; 0 unknown), end the time an open perturbation is drawn to.
func newEventMarks(ev []results.Event, start, loadEnd, end int64) *eventMarks {
	x := func(t int64) float64 { return float64(t-start) / 1e9 }
	m := &eventMarks{}
	for _, p := range analysis.Perturbations(ev) {
		to := p.End
		if to == 0 {
			to = max(end, p.Begin)
		}
		m.bands = append(m.bands, markBand{x0: x(p.Begin), x1: x(to), label: p.Label()})
	}
	for _, in := range analysis.Instants(ev, start, loadEnd) {
		m.lines = append(m.lines, markLine{x: x(in.At), label: in.Label(), exit: in.Kind == results.EventExit})
	}
	if len(m.bands) == 0 && len(m.lines) == 0 {
		return nil
	}
	return m
}

func (m *eventMarks) labelled() bool { return len(m.bands)+len(m.lines) <= maxMarkLabels }

// markBands draws the down periods.
type markBands struct{ m *eventMarks }

// Plot implements plot.Plotter.
func (b markBands) Plot(c draw.Canvas, p *plot.Plot) {
	for _, band := range b.m.bands {
		shade{x0: band.x0, x1: band.x1, col: downColor}.Plot(c, p)
	}
}

// Thumbnail implements plot.Thumbnailer.
func (b markBands) Thumbnail(c *draw.Canvas) { shade{col: downColor}.Thumbnail(c) }

// markLines draws the instants and every mark's label, over the data.
type markLines struct {
	m    *eventMarks
	exit bool // the thumbnail's style
}

func lineStyle(exit bool) draw.LineStyle {
	if exit {
		return draw.LineStyle{Color: exitColor, Width: vg.Points(1.4)}
	}
	return draw.LineStyle{Color: instantColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
}

// Plot implements plot.Plotter.
func (l markLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := p.X.Label.TextStyle
	sty.Font.Size = vg.Points(8)
	sty.Color = markText
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XRight, draw.YTop
	label := func(x vg.Length, text string) {
		if l.m.labelled() && x >= c.Min.X && x <= c.Max.X {
			c.FillText(sty, vg.Point{X: x + vg.Points(2), Y: c.Max.Y - vg.Points(3)}, text)
		}
	}
	for _, ln := range l.m.lines {
		x := trX(ln.x)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(lineStyle(ln.exit), x, c.Min.Y, x, c.Max.Y)
		label(x, ln.label)
	}
	for _, b := range l.m.bands {
		label(max(trX(b.x0), c.Min.X), b.label)
	}
}

// Thumbnail implements plot.Thumbnailer.
func (l markLines) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(lineStyle(l.exit), x, c.Min.Y, x, c.Max.Y)
}

// bandLegend returns the legend entry of m's bands, if any.
func bandLegend(m *eventMarks) []legendEntry {
	if m == nil || len(m.bands) == 0 {
		return nil
	}
	return []legendEntry{{"perturbation under way", markBands{m}}}
}

// addMarks adds m's bands, translucent, and its lines and labels, drawn
// over what was added before (a filled area would hide a band under it),
// and returns the legend entries of the lines.
func addMarks(p *plot.Plot, m *eventMarks) (legend []legendEntry) {
	if m == nil {
		return nil
	}
	if len(m.bands) > 0 {
		p.Add(markBands{m})
	}
	p.Add(markLines{m: m})
	var exit, other bool
	for _, l := range m.lines {
		exit, other = exit || l.exit, other || !l.exit
	}
	if exit {
		legend = append(legend, legendEntry{"node exited on its own", markLines{m: m, exit: true}})
	}
	if other {
		legend = append(legend, legendEntry{"node started / wiped", markLines{m: m}})
	}
	return legend
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}
