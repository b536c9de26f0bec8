package saturation

import (
	"cmp"
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/stats"
)

// GridCell is one cell of a sweep as the saturation table sees it: a load
// (c connections × r tx/s each) in a group of other settings, and the
// evidence and verdict of each finished repeat.
type GridCell struct {
	ID          string
	Group       string // the other swept settings ("mempool.size=1000"); "" when none
	Connections int
	Rate        float64 // tx/s per connection
	Runs        []GridRun
}

// GridRun is one finished repeat of a cell.
type GridRun struct {
	Evidence Evidence
	Verdict  Verdict
}

// CellInterval is a sample mean with its 95 % confidence interval
// (Student's t with n − 1 degrees of freedom):
//
//	mean ± t(0.975, n − 1) · s / √n
//
// Low and High equal Mean when N < 2. N is 0 when there is no value.
type CellInterval struct {
	N               int
	Mean, Low, High float64
}

// CellMeanInterval returns the mean of xs and its 95 % confidence interval.
func CellMeanInterval(xs []float64) CellInterval {
	iv := CellInterval{N: len(xs)}
	if iv.N == 0 {
		return iv
	}
	iv.Mean = stats.Mean(xs)
	iv.Low, iv.High = iv.Mean, iv.Mean
	if iv.N >= 2 {
		q := stats.TQuantile(0.975, float64(iv.N-1))
		h := q * stats.StdDev(xs) / math.Sqrt(float64(iv.N))
		iv.Low, iv.High = iv.Mean-h, iv.Mean+h
	}
	return iv
}

// Cell is one cell of a saturation table, over its finished repeats.
type Cell struct {
	ID          string
	Connections int
	Rate        float64
	Runs        int // finished repeats
	Failed      int // repeats failing the criterion
	// Saturated is true when at least half of the finished repeats fail
	// the criterion.
	Saturated bool
	// OnDiagonal is true for the cells whose load c·r is the table's
	// saturation diagonal.
	OnDiagonal bool

	Committed, Expected, Ratio, TPS, LatencyMeanMS, LatencyP99MS CellInterval
}

// Load is the cell's offered load c·r in tx/s.
func (c Cell) Load() float64 { return float64(c.Connections) * c.Rate }

// Table is the saturation table of one group of a sweep: rows are the
// rates r, columns the connections c, as CometBFT's QA reports lay it out.
type Table struct {
	Group string
	Rates []float64 // ascending
	Conns []int     // ascending
	Cells map[GridKey]*Cell

	// Diagonal is the saturation diagonal: the highest load c·r such that
	// no cell with that load or less is saturated (the cells along it are
	// equivalent loads); 0 when the lowest load is already saturated.
	Diagonal float64
	// Next is the lowest load above Diagonal in the grid; 0 when every
	// cell passes (the saturation point is beyond the grid).
	Next float64
	// SaturatedTPS is the median committed rate (tx/s, all connections)
	// of the saturated cells: what the network delivers when overloaded,
	// an estimate of its capacity; 0 when no cell is saturated.
	SaturatedTPS float64
}

// GridKey addresses a cell of a Table.
type GridKey struct {
	Connections int
	Rate        float64
}

// Cell returns the cell at (c, r), or nil.
func (t *Table) Cell(c int, r float64) *Cell { return t.Cells[GridKey{c, r}] }

// Tables builds one saturation table per group, groups in order
// of first appearance. It is pure.
func Tables(cells []GridCell) []*Table {
	var tables []*Table
	byGroup := map[string]*Table{}
	for _, gc := range cells {
		t := byGroup[gc.Group]
		if t == nil {
			t = &Table{Group: gc.Group, Cells: map[GridKey]*Cell{}}
			byGroup[gc.Group] = t
			tables = append(tables, t)
		}
		if !slices.Contains(t.Rates, gc.Rate) {
			t.Rates = append(t.Rates, gc.Rate)
		}
		if !slices.Contains(t.Conns, gc.Connections) {
			t.Conns = append(t.Conns, gc.Connections)
		}
		t.Cells[GridKey{gc.Connections, gc.Rate}] = tableCell(gc)
	}
	for _, t := range tables {
		slices.Sort(t.Rates)
		slices.Sort(t.Conns)
		t.diagonal()
	}
	return tables
}

func tableCell(gc GridCell) *Cell {
	c := &Cell{ID: gc.ID, Connections: gc.Connections, Rate: gc.Rate, Runs: len(gc.Runs)}
	var committed, expected, ratio, tps, mean, p99 []float64
	add := func(xs *[]float64, v *float64) {
		if v != nil {
			*xs = append(*xs, *v)
		}
	}
	for _, r := range gc.Runs {
		if !r.Verdict.Pass {
			c.Failed++
		}
		ev := r.Evidence
		committed = append(committed, ev.CommittedTxs)
		expected = append(expected, ev.ExpectedTxs)
		add(&ratio, ev.ThroughputRatio)
		add(&tps, ev.CommittedTPS)
		add(&mean, ev.LatencyMeanMS)
		add(&p99, ev.LatencyP99MS)
	}
	c.Saturated = c.Runs > 0 && 2*c.Failed >= c.Runs
	c.Committed, c.Expected, c.Ratio = CellMeanInterval(committed), CellMeanInterval(expected), CellMeanInterval(ratio)
	c.TPS, c.LatencyMeanMS, c.LatencyP99MS = CellMeanInterval(tps), CellMeanInterval(mean), CellMeanInterval(p99)
	return c
}

// diagonal finds the saturation diagonal and the saturated cells' median
// committed rate.
func (t *Table) diagonal() {
	var cells []*Cell
	for _, c := range t.Cells {
		if c.Runs > 0 {
			cells = append(cells, c)
		}
	}
	slices.SortFunc(cells, func(a, b *Cell) int {
		return cmp.Or(cmp.Compare(a.Load(), b.Load()), cmp.Compare(a.Connections, b.Connections))
	})
	var sat []float64
	for _, c := range cells {
		if c.Saturated && c.TPS.N > 0 {
			sat = append(sat, c.TPS.Mean)
		}
	}
	if len(sat) > 0 {
		slices.Sort(sat)
		t.SaturatedTPS = stats.Percentile(sat, 50)
	}
	for i, c := range cells {
		if c.Saturated {
			t.Next = c.Load()
			break
		}
		// c passes; it is the diagonal unless a cell of the same load
		// is saturated.
		sameSaturated := false
		for _, d := range cells[i+1:] {
			if d.Load() == c.Load() && d.Saturated {
				sameSaturated = true
			}
		}
		if sameSaturated {
			t.Next = c.Load()
			break
		}
		t.Diagonal = c.Load()
	}
	if t.Diagonal > 0 {
		for _, c := range cells {
			c.OnDiagonal = c.Load() == t.Diagonal
		}
	}
}
