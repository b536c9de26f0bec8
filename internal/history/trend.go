package history

import (
	"cmp"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/saturation"
)

// Order is how a trend orders its points.
type Order string

// Orders of a trend.
const (
	ByTime    Order = "time"    // by creation time
	ByRelease Order = "release" // by release (CompareReleases), then creation time
	// ByCommit orders by the source tree's commit time (a branch's
	// commits in the order they were made), then creation time; a run of
	// no commit (a release) takes its creation time's place.
	ByCommit Order = "commit"
)

// Orders are the orders a trend takes, as --by names them.
func Orders() []Order { return []Order{ByTime, ByRelease, ByCommit} }

// ChangePoint is a change in a series' level that a Detector found: the
// points from Index on differ from those before it. P is the change's
// p-value, Magnitude After − Before, Before and After the levels (means)
// either side.
type ChangePoint struct {
	Index     int     `json:"index"`
	P         float64 `json:"p"`
	Magnitude float64 `json:"magnitude"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	// The parameters it was found with (ChangeDetector).
	Window       int     `json:"window,omitempty"`
	MaxP         float64 `json:"max_p,omitempty"`
	MinPoints    int     `json:"min_points,omitempty"`
	MinMagnitude float64 `json:"min_magnitude,omitempty"`
}

// Detector finds the change points of a series of values in order; the
// caller chooses the method (cmd wires the change-point package in).
type Detector func(xs []float64) []ChangePoint

// NoiseFloor is the smallest change of a series' level that its noise
// lets one see, in the series' unit; the caller chooses the method.
type NoiseFloor func(xs []float64) float64

// Point is one run's value in a trend.
type Point struct {
	Dir      string    `json:"dir"`
	Created  time.Time `json:"created"`
	Release  string    `json:"release,omitempty"`
	Label    string    `json:"label,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	Value    float64   `json:"value"`
	Interval *Interval `json:"interval,omitempty"`
}

// Trend is one figure of one series, in order, with its change points.
type Trend struct {
	SeriesID string    `json:"series_id"`
	Series   SeriesKey `json:"series"`
	Figure   string    `json:"figure"`
	Title    string    `json:"title,omitempty"`
	Unit     string    `json:"unit,omitempty"`
	Better   string    `json:"better,omitempty"` // higher, lower or neutral
	Order    Order     `json:"order"`
	Points   []Point   `json:"points"`
	// Detected says a Detector was asked; ChangePoints are what it found
	// (indexes into Points).
	Detected     bool          `json:"detected"`
	ChangePoints []ChangePoint `json:"change_points,omitempty"`
}

// Values are the trend's values in order.
func (t Trend) Values() []float64 {
	xs := make([]float64, len(t.Points))
	for i, p := range t.Points {
		xs[i] = p.Value
	}
	return xs
}

// MakeTrend is figure over runs (one series: the key of the first run
// names it), ordered by order, with detect's change points when detect is
// not nil. Runs without the figure are left out. It is pure.
func MakeTrend(runs []Run, figure string, order Order, detect Detector) Trend {
	t := Trend{Figure: figure, Order: order, Points: []Point{}}
	if len(runs) > 0 {
		t.Series = runs[0].Series()
		t.SeriesID = t.Series.ID()
	}
	if m, ok := Lookup(figure); ok {
		t.Title, t.Unit, t.Better = m.Title, m.Unit, m.Better.String()
	}
	// Sort the places of the runs that have the figure, not the runs: a
	// run is a large value, and a page makes a trend of every figure.
	var at []int
	for i := range runs {
		if _, ok := runs[i].Figures[figure]; ok {
			at = append(at, i)
		}
	}
	slices.SortStableFunc(at, func(a, b int) int { return compareRuns(&runs[a], &runs[b], order) })
	t.Points = make([]Point, 0, len(at))
	for _, i := range at {
		r := &runs[i]
		f := r.Figures[figure]
		t.Points = append(t.Points, Point{Dir: r.Dir, Created: r.Created, Release: r.Release, Label: r.Label, Commit: r.Commit, Value: f.Value, Interval: f.Interval})
	}
	if detect != nil {
		t.Detected = true
		t.ChangePoints = detect(t.Values())
	}
	return t
}

// SortRuns returns runs in order, oldest (or earliest release) first;
// ties by creation time, then directory. runs is not changed.
func SortRuns(runs []Run, order Order) []Run {
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b Run) int { return compareRuns(&a, &b, order) })
	return out
}

// compareRuns orders two runs as SortRuns does.
func compareRuns(a, b *Run, order Order) int {
	switch order {
	case ByRelease:
		if c := CompareReleases(a.Release, b.Release); c != 0 {
			return c
		}
	case ByCommit:
		if c := a.commitOrder().Compare(b.commitOrder()); c != 0 {
			return c
		}
	}
	return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.Dir, b.Dir))
}

// commitOrder is the time a run takes in a trend by commit: its commit's,
// or its creation's for a run of no commit.
func (r *Run) commitOrder() time.Time {
	if r.CommitTime.IsZero() {
		return r.Created
	}
	return r.CommitTime
}

// Group is the runs of one series.
type Group struct {
	ID   string    `json:"id"`
	Key  SeriesKey `json:"key"`
	Runs []Run     `json:"runs"`
}

// Groups splits runs by series, in the order of their first run in runs
// (newest first for Index.Runs); each group keeps the order of runs.
func Groups(runs []Run) []Group {
	var out []Group
	at := map[string]int{}
	for _, r := range runs {
		k := r.Series()
		id := k.ID()
		i, ok := at[id]
		if !ok {
			i = len(out)
			at[id] = i
			out = append(out, Group{ID: id, Key: k})
		}
		out[i].Runs = append(out[i].Runs, r)
	}
	return out
}

// Lookup returns the dictionary entry of a figure: a run's
// (analysis.Dictionary) or a sweep's or search's (saturation.Dictionary).
func Lookup(id string) (analysis.Metric, bool) {
	if m, ok := analysis.Lookup(id); ok {
		return m, true
	}
	for _, m := range saturation.Dictionary() {
		if m.ID == id {
			return m, true
		}
	}
	return analysis.Metric{}, false
}

// TrendOf is figure's trend along the series of the newest of runs that
// has it (runs newest first, as Index.Runs gives them), and the other
// series that have it, each a Group; ok is false when no run has it.
func TrendOf(runs []Run, figure string, order Order, detect Detector) (t Trend, others []Group, ok bool) {
	var with []Run
	for _, r := range runs {
		if _, ok := r.Value(figure); ok {
			with = append(with, r)
		}
	}
	groups := Groups(with)
	if len(groups) == 0 {
		return Trend{Figure: figure, Order: order, Points: []Point{}}, nil, false
	}
	return MakeTrend(groups[0].Runs, figure, order, detect), groups[1:], true
}
