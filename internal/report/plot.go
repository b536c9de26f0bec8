package report

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// Default plot size in pixels, at plotDPI.
const (
	DefaultPlotWidth  = 1000
	DefaultPlotHeight = 500
	plotDPI           = 96
)

// PlotSizeEnv names the environment variable that, set to WIDTHxHEIGHT
// in pixels (e.g. 200x100), replaces the default plot size. The tests that
// run real nodes set it (testnettest.LockForTest): under -race, drawing a
// run's plots at the default size takes about 20 s, at 200 × 100 about 3.
const PlotSizeEnv = "COMETLAB_PLOT_SIZE"

// plotSize returns width × height, or the default size when either is not
// positive: PlotSizeEnv's when it is set and valid, else DefaultPlotWidth ×
// DefaultPlotHeight.
func plotSize(width, height int) (int, int) {
	if width > 0 && height > 0 {
		return width, height
	}
	if w, h, ok := strings.Cut(os.Getenv(PlotSizeEnv), "x"); ok {
		wi, werr := strconv.Atoi(w)
		hi, herr := strconv.Atoi(h)
		if werr == nil && herr == nil && wi > 0 && hi > 0 {
			return wi, hi
		}
	}
	return DefaultPlotWidth, DefaultPlotHeight
}

// LatencyPoints returns the points of the block-latency scatter plot, one
// per committed transaction (duplicates and transactions without a commit
// time left out): x = send time − load start, y = block latency
// (commit time − send time), both in s. When run has no load start, the
// first send time is used. Past analysis.ScatterCap points they are
// decimated as analysis.Scatter says.
func LatencyPoints(run results.Run, txs []results.Tx) (xs, ys []float64) {
	return latencyPoints(run, analysis.AggregateTxs(analysis.Input{Run: run, Txs: txs}))
}

func latencyPoints(run results.Run, a *analysis.TxAggregates) (xs, ys []float64) {
	start := run.LoadStart.UnixNano()
	if run.LoadStart.IsZero() {
		start = a.FirstSent
	}
	sent, lat := a.Scatter.Points()
	xs = make([]float64, len(sent))
	ys = make([]float64, len(sent))
	for i := range sent {
		xs[i] = float64(sent[i]-start) / 1e9
		ys[i] = float64(lat[i]) / 1e9
	}
	return xs, ys
}

// LatencyPNG draws the block-latency scatter plot of CometBFT's QA reports
// as a width × height PNG (0 means the default size): one small point per
// committed transaction at (s since load start, block latency in s), and a
// dashed red line at the mean latency. Points are drawn straight into the
// raster, so a million of them take well under a second.
func LatencyPNG(w io.Writer, run results.Run, txs []results.Tx, width, height int) error {
	return latencyPNG(w, run, analysis.AggregateTxs(analysis.Input{Run: run, Txs: txs}), width, height, nil)
}

// latencyPNG is LatencyPNG of the aggregates with the run's event marks
// (nil: none), whose x must be seconds since the plot's load start.
func latencyPNG(w io.Writer, run results.Run, a *analysis.TxAggregates, width, height int, marks *eventMarks) error {
	width, height = plotSize(width, height)
	xs, ys := latencyPoints(run, a)
	if len(xs) == 0 {
		return fmt.Errorf("latency plot: no committed transaction with a commit time")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Block latency per transaction (c=%d, r=%s)", run.Load.Connections, strconv.FormatFloat(run.Load.Rate, 'g', 6, 64))
	p.Title.Padding = vg.Points(8)
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Tick.Marker = plot.TickerFunc(niceTicks)
	p.Y.Tick.Marker = plot.TickerFunc(niceTicks)
	p.X.Label.Text = "time since load start (s)"
	p.Y.Label.Text = "block latency (s)"
	p.Add(plotter.NewGrid())

	// Few points: solid dots; many: smaller, translucent ones, so that
	// density shows.
	pts := &pointCloud{xs: xs, ys: ys, color: color.NRGBA{R: 31, G: 119, B: 180, A: 230}, radius: 2.2}
	if len(xs) > 20_000 {
		pts.color.A, pts.radius = 90, 1.5
	}
	p.Add(pts)
	label := fmt.Sprintf("transactions (%s)", groupDigits(float64(a.Scatter.Total)))
	if a.Scatter.Decimated() {
		label = fmt.Sprintf("transactions (%s of %s drawn)", groupDigits(float64(len(xs))), groupDigits(float64(a.Scatter.Total)))
	}
	p.Legend.Add(label, pts)

	mean := a.Block.Describe().Mean / 1e9
	xmin, xmax, _, ymax := pts.DataRange()
	xmin, xmax = min(xmin, 0), max(xmax, run.Load.DurationS)
	if xmax <= xmin {
		xmax = xmin + 1
	}
	line, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: mean}, {X: xmax, Y: mean}})
	if err != nil {
		return err
	}
	line.Color = color.NRGBA{R: 214, G: 39, B: 40, A: 255}
	line.Width = vg.Points(1.5)
	line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	p.Add(line)
	p.Legend.Add(fmt.Sprintf("mean = %s s", strconv.FormatFloat(mean, 'f', 3, 64)), line)
	for _, e := range append(bandLegend(marks), addMarks(p, marks)...) {
		p.Legend.Add(e.name, e.thumb)
	}
	p.Legend.Top = true
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), -vg.Points(4)
	p.Legend.ThumbnailWidth = vg.Points(24)

	// Headroom above the highest point keeps the legend off the data.
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, max(ymax, mean)*1.25
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}

	wPt := vg.Length(width) * vg.Inch / plotDPI
	hPt := vg.Length(height) * vg.Inch / plotDPI
	c := vgimg.NewWith(vgimg.UseWH(wPt, hPt), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	return png.Encode(w, c.Image())
}

// pointCloud is a scatter plotter for very many points. On a raster canvas
// it blends a small anti-aliased disc per point straight into the image
// (no per-point allocation or path); on other canvases it draws circles.
type pointCloud struct {
	xs, ys []float64
	color  color.NRGBA
	radius float64 // in pixels at plotDPI
}

// DataRange implements plot.DataRanger.
func (pc *pointCloud) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for i, x := range pc.xs {
		xmin, xmax = min(xmin, x), max(xmax, x)
		ymin, ymax = min(ymin, pc.ys[i]), max(ymax, pc.ys[i])
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer for the extreme points only, so
// the plot leaves room for a whole dot at each edge.
func (pc *pointCloud) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	if len(pc.xs) == 0 {
		return nil
	}
	ext := [4]int{} // indexes of min x, max x, min y, max y
	for i, x := range pc.xs {
		y := pc.ys[i]
		if x < pc.xs[ext[0]] {
			ext[0] = i
		}
		if x > pc.xs[ext[1]] {
			ext[1] = i
		}
		if y < pc.ys[ext[2]] {
			ext[2] = i
		}
		if y > pc.ys[ext[3]] {
			ext[3] = i
		}
	}
	r := pc.glyph(1).Rectangle()
	boxes := make([]plot.GlyphBox, 0, len(ext))
	for _, i := range ext {
		boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(pc.xs[i]), Y: p.Y.Norm(pc.ys[i]), Rectangle: r})
	}
	return boxes
}

// Thumbnail implements plot.Thumbnailer: one larger point.
func (pc *pointCloud) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(pc.glyph(2), c.Center())
}

func (pc *pointCloud) glyph(scale float64) draw.GlyphStyle {
	col := pc.color
	col.A = 255
	return draw.GlyphStyle{Color: col, Radius: vg.Length(pc.radius*scale) * vg.Inch / plotDPI, Shape: draw.CircleGlyph{}}
}

// Plot implements plot.Plotter.
func (pc *pointCloud) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rc, ok := rasterOf(c.Canvas)
	img, isRGBA := (*image.RGBA)(nil), false
	if ok {
		img, isRGBA = rc.Image().(*image.RGBA)
	}
	if !isRGBA {
		sty := pc.glyph(1)
		for i, x := range pc.xs {
			pt := vg.Point{X: trX(x), Y: trY(pc.ys[i])}
			if c.Contains(pt) {
				c.DrawGlyphNoClip(sty, pt)
			}
		}
		return
	}
	dots := rc.DPI() / vg.Inch.Points() // pixels per point
	h := float64(img.Bounds().Dy())
	toPx := func(x, y vg.Length) (float64, float64) { return float64(x) * dots, h - float64(y)*dots }
	x0, y1 := toPx(c.Min.X, c.Min.Y)
	x1, y0 := toPx(c.Max.X, c.Max.Y)
	// A dot whose centre is in the data area is drawn whole.
	r := pc.radius * rc.DPI() / plotDPI
	clip := image.Rect(int(math.Floor(x0-r)), int(math.Floor(y0-r)), int(math.Ceil(x1+r)), int(math.Ceil(y1+r))).Intersect(img.Bounds())
	m := newDiscMask(r)
	for i, x := range pc.xs {
		px, py := toPx(trX(x), trY(pc.ys[i]))
		if px < x0 || px > x1 || py < y0 || py > y1 {
			continue
		}
		m.blend(img, clip, px, py, pc.color)
	}
}

// rasterOf returns the image canvas under the draw.Canvas wrappers the plot
// puts around it (they delegate without transforming).
func rasterOf(cv vg.Canvas) (*vgimg.Canvas, bool) {
	for {
		switch v := cv.(type) {
		case *vgimg.Canvas:
			return v, true
		case draw.Canvas:
			cv = v.Canvas
		case *draw.Canvas:
			cv = v.Canvas
		default:
			return nil, false
		}
	}
}

// discMask is the coverage (0…1) of a disc on the pixel grid for each of
// four sub-pixel positions of its centre (which half of the pixel in x and
// in y); finer positions make no visible difference at this size.
type discMask struct {
	size int          // mask is size × size pixels
	cov  [4][]float32 // by sub-pixel offset: (x half, y half)
}

func newDiscMask(r float64) discMask {
	size := int(math.Ceil(2*r)) + 3
	m := discMask{size: size}
	const ss = 4 // supersamples per pixel side
	for o := range 4 {
		// The centre is at the middle of the half pixel it was rounded to.
		cx := float64(size/2) + 0.25 + float64(o&1)/2
		cy := float64(size/2) + 0.25 + float64(o>>1)/2
		cov := make([]float32, size*size)
		for py := range size {
			for px := range size {
				n := 0
				for sy := range ss {
					for sx := range ss {
						dx := float64(px) + (float64(sx)+0.5)/ss - cx
						dy := float64(py) + (float64(sy)+0.5)/ss - cy
						if dx*dx+dy*dy <= r*r {
							n++
						}
					}
				}
				cov[py*size+px] = float32(n) / ss / ss
			}
		}
		m.cov[o] = cov
	}
	return m
}

// blend draws the disc centred at pixel coordinates (x, y) over img within
// clip: dst = dst·(1 − a) + col·a, a = alpha·coverage.
func (m discMask) blend(img *image.RGBA, clip image.Rectangle, x, y float64, col color.NRGBA) {
	ix, iy := int(math.Floor(x)), int(math.Floor(y))
	o := 0
	if x-float64(ix) >= 0.5 {
		o |= 1
	}
	if y-float64(iy) >= 0.5 {
		o |= 2
	}
	cov := m.cov[o]
	ox, oy := ix-m.size/2, iy-m.size/2
	alpha := float32(col.A) / 255
	cr, cg, cb := float32(col.R), float32(col.G), float32(col.B)
	for j := range m.size {
		py := oy + j
		if py < clip.Min.Y || py >= clip.Max.Y {
			continue
		}
		row := img.Pix[(py-img.Rect.Min.Y)*img.Stride:]
		for i := range m.size {
			px := ox + i
			a := cov[j*m.size+i] * alpha
			if a == 0 || px < clip.Min.X || px >= clip.Max.X {
				continue
			}
			p := row[(px-img.Rect.Min.X)*4 : (px-img.Rect.Min.X)*4+4 : (px-img.Rect.Min.X)*4+4]
			p[0] = uint8(float32(p[0])*(1-a) + cr*a + 0.5)
			p[1] = uint8(float32(p[1])*(1-a) + cg*a + 0.5)
			p[2] = uint8(float32(p[2])*(1-a) + cb*a + 0.5)
			p[3] = uint8(float32(p[3])*(1-a) + 255*a + 0.5)
		}
	}
}

// niceTicks returns about 6–10 major ticks at multiples of 1, 2 or 5 × 10^k
// between lo and hi, labelled with just enough decimals, and a minor tick
// between each two.
func niceTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if step = m * mag; step >= raw {
			break
		}
	}
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if v == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		if m := v + step/2; m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	if first := math.Ceil(lo/step)*step - step/2; first >= lo {
		ticks = append(ticks, plot.Tick{Value: first})
	}
	return ticks
}
