package report

import (
	"cmp"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// CurvePoint is one run (or the mean of a cell's repeats) on the
// latency–throughput curve.
type CurvePoint struct {
	Order  float64 // points of a series are joined in this order (the rate r)
	TPS    float64 // achieved throughput, tx/s over all connections
	MeanMS float64 // mean block latency, ms
	P99MS  float64 // p99 block latency, ms
}

// CurveSeries is one line pair of the curve (one connection count c).
type CurveSeries struct {
	Label  string
	Points []CurvePoint
}

// curveColors are the series colours (matplotlib's tab10, as CometBFT's
// latency_throughput.py draws).
var curveColors = []color.NRGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
}

// LatencyThroughputPNG draws the latency–throughput curve of a sweep or a
// saturation search, as CometBFT's latency_throughput.py does: x = achieved
// throughput (tx/s, all connections), y = block latency (s); per series a
// solid line with dots for the mean and a dashed line with crosses for the
// p99, points joined in order of the offered rate. width × height pixels
// (0 means the default size).
func LatencyThroughputPNG(w io.Writer, title string, series []CurveSeries, width, height int) error {
	width, height = plotSize(width, height)
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Label.Text = "throughput (committed tx/s, all connections)"
	p.Y.Label.Text = "block latency (s)"
	p.X.Tick.Marker = plot.TickerFunc(niceTicks)
	p.Y.Tick.Marker = plot.TickerFunc(niceTicks)
	p.Add(plotter.NewGrid())
	n := 0
	var ymax, xmax float64
	for i, s := range series {
		pts := slices.Clone(s.Points)
		if len(pts) == 0 {
			continue
		}
		slices.SortStableFunc(pts, func(a, b CurvePoint) int { return cmp.Compare(a.Order, b.Order) })
		mean := make(plotter.XYs, len(pts))
		p99 := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			mean[j] = plotter.XY{X: pt.TPS, Y: pt.MeanMS / 1000}
			p99[j] = plotter.XY{X: pt.TPS, Y: pt.P99MS / 1000}
			ymax, xmax = max(ymax, pt.P99MS/1000, pt.MeanMS/1000), max(xmax, pt.TPS)
		}
		col := curveColors[i%len(curveColors)]
		ml, mp, err := plotter.NewLinePoints(mean)
		if err != nil {
			return fmt.Errorf("latency–throughput plot: %w", err)
		}
		ml.Color, ml.Width = col, vg.Points(1.8)
		mp.Color, mp.Shape, mp.Radius = col, draw.CircleGlyph{}, vg.Points(3.5)
		pl, pp, err := plotter.NewLinePoints(p99)
		if err != nil {
			return fmt.Errorf("latency–throughput plot: %w", err)
		}
		pl.Color, pl.Width, pl.Dashes = col, vg.Points(1.4), []vg.Length{vg.Points(6), vg.Points(4)}
		pp.Color, pp.Shape, pp.Radius = col, draw.CrossGlyph{}, vg.Points(3.5)
		p.Add(ml, mp, pl, pp)
		p.Legend.Add(s.Label+" mean", ml, mp)
		p.Legend.Add(s.Label+" p99", pl, pp)
		n++
	}
	if n == 0 {
		return fmt.Errorf("latency–throughput plot: no finished run")
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(4)
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = max(xmax*1.08, 1), max(ymax*1.3, 0.1)

	wPt := vg.Length(width) * vg.Inch / plotDPI
	hPt := vg.Length(height) * vg.Inch / plotDPI
	c := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	return png.Encode(w, c.Image())
}
