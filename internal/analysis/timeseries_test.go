package analysis

import (
	"math"
	"reflect"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

const s1 = int64(1e9)

// nanEqual compares float slices, NaN equal to NaN, to 1e-9.
func nanEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) != math.IsNaN(b[i]) || (!math.IsNaN(a[i]) && math.Abs(a[i]-b[i]) > 1e-9) {
			return false
		}
	}
	return true
}

func TestIncrease(t *testing.T) {
	tests := []struct {
		v    []float64
		want float64
	}{
		{nil, 0}, {[]float64{5}, 0}, {[]float64{1, 2, 4}, 3},
		{[]float64{10, 12, 3, 5}, 2 + 3 + 2}, // a restart at 3: counts from 0
	}
	for _, tt := range tests {
		if got := Increase(tt.v); got != tt.want {
			t.Errorf("Increase(%v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestSlidingRates(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name  string
		t     []int64
		v     []float64
		width int64
		want  []float64
	}{
		{"steady", []int64{0, s1, 2 * s1, 3 * s1, 4 * s1}, []float64{0, 2, 4, 6, 8}, 2 * s1, []float64{nan, 2, 2, 2, 2}},
		{"window drops old samples", []int64{0, s1, 2 * s1, 3 * s1}, []float64{0, 10, 11, 12}, s1, []float64{nan, 10, 1, 1}},
		{"gap", []int64{0, s1, 10 * s1, 11 * s1}, []float64{0, 1, 50, 51}, 2 * s1, []float64{nan, 1, nan, 1}},
		{"reset", []int64{0, s1, 2 * s1}, []float64{5, 6, 1}, 2 * s1, []float64{nan, 1, 1}},
		{"empty", nil, nil, s1, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SlidingRates(tt.t, tt.v, tt.width); !nanEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResample(t *testing.T) {
	nan := math.NaN()
	got := Resample([]int64{10, 20, 45}, []float64{1, 2, 3}, 0, 10, 7, 10)
	want := []float64{nan, 1, 2, 2, nan, 3, nan} // at 40 (and 60) the last sample is 20 (15) old
	if !nanEqual(got, want) {
		t.Errorf("Resample = %v, want %v", got, want)
	}
}

func TestSegmentsAndGaps(t *testing.T) {
	ts := []int64{0, 1, 2, 10, 11, 30}
	if got, want := Segments(ts, 3), [][2]int{{0, 3}, {3, 5}, {5, 6}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Segments = %v, want %v", got, want)
	}
	if got := Segments(nil, 3); got != nil {
		t.Errorf("Segments(nil) = %v", got)
	}
	tests := []struct {
		name     string
		t        []int64
		from, to int64
		want     [][2]int64
	}{
		{"none", []int64{0, 1, 2}, 0, 2, nil},
		{"late start and early end", []int64{5, 6}, 0, 12, [][2]int64{{0, 5}, {6, 12}}},
		{"middle", []int64{0, 1, 9, 10}, 0, 10, [][2]int64{{1, 9}}},
		{"no samples", nil, 0, 10, [][2]int64{{0, 10}}},
	}
	for _, tt := range tests {
		if got := FindGaps(tt.t, tt.from, tt.to, 3); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: FindGaps = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := MedianStep([]int64{0, 1, 2, 3}, []int64{0, 5}); got != 1 {
		t.Errorf("MedianStep = %d, want 1", got)
	}
	if got := GapThreshold(s1); got != 5*s1 {
		t.Errorf("GapThreshold(1 s) = %d", got)
	}
	if got := GapThreshold(s1 / 10); got != 3*s1 {
		t.Errorf("GapThreshold(100 ms) = %d", got)
	}
}

func TestNodeGaps(t *testing.T) {
	times := map[string][]int64{
		"a": {0, s1, 2 * s1, 3 * s1, 4 * s1, 20 * s1},
		"b": {0, s1, 2 * s1, 3 * s1, 4 * s1, 5 * s1},
	}
	for k := 6; k <= 20; k++ {
		times["b"] = append(times["b"], int64(k)*s1)
	}
	got := NodeGaps(times, []string{"a", "b", "c"})
	want := []Gap{{Node: "a", From: 4 * s1, To: 20 * s1}, {Node: "c", From: 0, To: 20 * s1, Missing: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NodeGaps = %+v, want %+v", got, want)
	}
}

func TestAlign(t *testing.T) {
	a := &Series{T: []int64{0, 10, 20, 30}, V: []float64{1, 2, 3, 4}}
	b := &Series{T: []int64{12, 22}, V: []float64{5, 6}} // a later phase, from 12
	grid, vals := Align([]*Series{a, b, nil}, 10)
	if want := []int64{0, 10, 20, 30}; !reflect.DeepEqual(grid, want) {
		t.Fatalf("grid = %v, want %v", grid, want)
	}
	nan := math.NaN()
	for i, want := range [][]float64{{1, 2, 3, 4}, {nan, 5, 6, 6}, {nan, nan, nan, nan}} {
		if !nanEqual(vals[i], want) {
			t.Errorf("series %d = %v, want %v", i, vals[i], want)
		}
	}
	if g, v := Align(nil, 10); g != nil || v != nil {
		t.Errorf("Align(nil) = %v, %v", g, v)
	}
}

func TestSeriesSet(t *testing.T) {
	rows := []results.Metric{
		{Time: 2, Node: "n1", Name: "chain_mempool_size", Labels: "chain_id=c", Value: 7},
		{Time: 1, Node: "n1", Name: "chain_mempool_size", Labels: "chain_id=c", Value: 5},
		{Time: 1, Node: "n1", Name: "chain_mempool_size", Labels: "chain_id=c", Value: 99}, // same time: dropped
		{Time: 1, Node: "n0", Name: "chain_consensus_step_duration_seconds_sum", Labels: "chain_id=c;step=Propose", Value: 1},
		{Time: 1, Node: "n0", Name: "chain_consensus_step_duration_seconds_sum", Labels: "chain_id=c;step=Commit", Value: 2},
		{Time: 2, Node: "n0", Name: "chain_consensus_step_duration_seconds_sum", Labels: "chain_id=c;step=Commit", Value: 3},
		{Time: 1, Node: "n0", Name: "chain_mempool_size_bytes_bucket", Labels: "le=+Inf", Value: 1}, // not kept
		{Time: 1, Node: "n0", Name: "process_resident_memory_bytes", Value: 1e8},
		{Time: 1, Node: "n0", Name: "other_process_resident_memory_bytes", Value: 1}, // not kept: namespaced process_*
	}
	set := NewSeriesSet(rows)
	if set.Namespace != "chain" || set.Rows != len(rows) || set.Kept != 7 {
		t.Errorf("namespace %q, rows %d, kept %d", set.Namespace, set.Rows, set.Kept)
	}
	if got := set.Nodes(); !reflect.DeepEqual(got, []string{"n0", "n1"}) {
		t.Errorf("Nodes = %v", got)
	}
	m := set.One("n1", "mempool_size")
	if m == nil || !reflect.DeepEqual(m.T, []int64{1, 2}) || !reflect.DeepEqual(m.V, []float64{5, 7}) || m.Name != "chain_mempool_size" {
		t.Errorf("mempool_size = %+v", m)
	}
	steps := set.Find("n0", "consensus_step_duration_seconds_sum")
	if len(steps) != 2 || steps[0].Label("step") != "Commit" || steps[1].Label("step") != "Propose" || steps[0].Label("nope") != "" {
		t.Errorf("steps = %+v", steps)
	}
	sum := set.Sum("n0", "consensus_step_duration_seconds_sum")
	if !reflect.DeepEqual(sum.T, []int64{1, 2}) || !reflect.DeepEqual(sum.V, []float64{3, 3}) {
		t.Errorf("Sum = %v %v", sum.T, sum.V)
	}
	if set.One("n0", "process_resident_memory_bytes") == nil || set.One("n2", "mempool_size") != nil || set.Find("n0", "mempool_size_bytes_bucket") != nil {
		t.Error("lookups of kept and dropped series")
	}
	want := []results.Metric{rows[1], rows[0]} // in time order, the duplicate dropped
	if got := set.Samples("mempool_size"); !reflect.DeepEqual(got, want) {
		t.Errorf("Samples(mempool_size) = %+v, want %+v", got, want)
	}
	var none *SeriesSet
	if none.Find("n0", "mempool_size") != nil || none.One("n0", "mempool_size") != nil || none.Samples("mempool_size") != nil {
		t.Error("a nil set has series")
	}
}

// BenchmarkReadSeries reads an hour of metrics of 4 nodes (about 540,000
// rows of which about 300,000 kept).
func BenchmarkReadSeries(b *testing.B) {
	dir := b.TempDir()
	in := synthetic(4, 100, 1, false) // blocks for 100 s: stretch the model over an hour
	m := nodeModel(in)
	m.To = m.From + 3600*s1
	w, err := results.Create(dir+"/"+results.MetricsFile, results.MetricsHeader)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Generate(func(r *results.Metric) error { return w.Write(r) }, nil); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		set, err := ReadSeries(dir)
		if err != nil || set.Kept == 0 {
			b.Fatal(set, err)
		}
	}
}
