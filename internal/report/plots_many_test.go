package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
)

func TestWorstOf(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		vals [][]float64
		k    int
		low  bool
		want []int
	}{
		{"highest means first", [][]float64{{1, 1}, {5, 7}, {2, 2}, {9, 9}, {1, 3}}, 2, false, []int{3, 1}},
		{"lowest means first", [][]float64{{1, 1}, {5, 7}, {2, 2}, {9, 9}, {0, 2}, {3, 3}}, 2, true, []int{0, 4}},
		{"only worse than the median", [][]float64{{1}, {2}, {3}, {4}, {5}}, 3, false, []int{4, 3}},
		{"all alike: none", [][]float64{{4}, {4}, {4}, {4}}, 3, false, nil},
		{"ties in row order", [][]float64{{1}, {1}, {1}, {1}, {7}, {7}, {7}}, 3, false, []int{4, 5, 6}},
		{"a median tie is not worse", [][]float64{{1}, {1}, {1}, {7}, {7}, {7}, {7}}, 3, false, nil},
		{"NaN left out, rows without values never chosen", [][]float64{{nan, nan}, {nan, 8}, {2, nan}, {1, 1}}, 3, false, []int{1}},
		{"no rows", nil, 3, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := worstOf(tt.vals, tt.k, tt.low); !slices.Equal(got, tt.want) {
				t.Errorf("worstOf = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestColumnQuantiles(t *testing.T) {
	nan := math.NaN()
	// Column 0: 1…5 (type 7: p25 = 2, p75 = 4); column 1: 10, 20 and
	// NaNs (p25 = 12.5); column 2: no value.
	vals := [][]float64{{3, 10, nan}, {1, nan, nan}, {5, 20, nan}, {2, nan, nan}, {4, nan, nan}}
	q := columnQuantiles(vals, 3)
	want := quantiles{lo: []float64{1, 10, nan}, q1: []float64{2, 12.5, nan}, med: []float64{3, 15, nan}, q3: []float64{4, 17.5, nan}, hi: []float64{5, 20, nan}}
	eq := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
	}
	for _, c := range []struct {
		name      string
		got, want []float64
	}{{"min", q.lo, want.lo}, {"p25", q.q1, want.q1}, {"median", q.med, want.med}, {"p75", q.q3, want.q3}, {"max", q.hi, want.hi}} {
		if !eq(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestNodeTableThreshold checks that a per-node table is written in full
// up to manyNodes nodes and summarised past it (the full table then kept
// for the appendix), and that the summary names the worst nodes by the
// dictionary's better direction.
func TestNodeTableThreshold(t *testing.T) {
	summary := func(n int) (analysis.Summary, []string) {
		s := analysis.Summary{Nodes: map[string]map[string]float64{}}
		var nodes []string
		for i := range n {
			name := fmt.Sprintf("node%02d", i)
			nodes = append(nodes, name)
			s.Nodes[name] = map[string]float64{"cpu_mean_pct": float64(10 + i), "peers_min": float64(40 - i)}
		}
		return s, nodes
	}
	tests := []struct {
		nodes   int
		summary bool
		want    []string
	}{
		{manyNodes, false, []string{"| node11 | 21.0 % | 29 peers |"}},
		{manyNodes + 1, true, []string{
			"| CPU mean | 13 | 10.0 % | 13.0 % | 16.0 % | 19.0 % | 22.0 % | node12 22.0 %, node11 21.0 %, node10 20.0 % |",
			"| Peers min | 13 | 28 peers | 31 peers | 34 peers | 37 peers | 40 peers | node12 28 peers, node11 29 peers, node10 30 peers |",
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.nodes), func(t *testing.T) {
			s, nodes := summary(tt.nodes)
			var b bytes.Buffer
			m := mdWriter{w: &b, full: &[]nodeTableSpec{}, many: isMany(tt.nodes)}
			m.nodeTable(s, "Resources", nodes, []string{"cpu_mean_pct", "peers_min"})
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, b.String())
				}
			}
			if got := len(*m.full) == 1; got != tt.summary {
				t.Errorf("kept for the appendix: %v, want %v", got, tt.summary)
			}
			b.Reset()
			m.nodeAppendix(s)
			if tt.summary && !strings.Contains(b.String(), "### Resources\n\n| node | CPU mean | Peers min |") {
				t.Errorf("appendix:\n%s", b.String())
			}
		})
	}
}
