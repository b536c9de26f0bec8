package changepoint

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// FuzzDetect: Detect never panics, and its points are sorted, in range,
// tile the series (a point's Before starts at the previous point, its
// After ends at the next), keep MinPoints a side, pass both gates and
// come out the same twice. The series is the input's bytes read as
// little-endian float64s (non-finite values must be refused).
func FuzzDetect(f *testing.F) {
	f.Add(encode(shift(noisy(60, 0.03, 1), 30, 0.1)), uint8(0), uint8(0), 0.0)
	f.Add(encode(shift(noisy(120, 0.01, 2), 40, 0.2)), uint8(10), uint8(2), 0.05)
	f.Add(encode([]float64{0, 0, 0, 1, 1, 1, 1e308, -1e308, 5e-324}), uint8(6), uint8(3), 0.0)
	f.Add(encode(slices.Repeat([]float64{3}, 20)), uint8(0), uint8(0), 0.0)
	f.Fuzz(func(t *testing.T, data []byte, window, minPoints uint8, minMagnitude float64) {
		xs := decode(data)
		c := Config{Window: int(window), MinPoints: int(minPoints), MinMagnitude: minMagnitude}
		got, err := Detect(xs, c)
		finite := !slices.ContainsFunc(xs, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
		if err != nil {
			if c.Validate() == nil && finite {
				t.Fatalf("Detect: %v, with a valid config and finite values", err)
			}
			return
		}
		if !finite {
			t.Fatal("Detect accepted a non-finite value")
		}
		c = c.withDefaults()
		for i, p := range got {
			start, end := 0, len(xs)
			if i > 0 {
				start = got[i-1].Index
			}
			if i < len(got)-1 {
				end = got[i+1].Index
			}
			if p.Before.Start != start || p.Before.N != p.Index-start || p.After.Start != p.Index || p.After.N != end-p.Index {
				t.Fatalf("point %d of %d points: %+v does not tile [%d, %d)", i, len(xs), p, start, end)
			}
			if p.Before.N < c.MinPoints || p.After.N < c.MinPoints {
				t.Fatalf("point %d: %+v has fewer than %d points a side", i, p, c.MinPoints)
			}
			if !(p.P >= 0 && p.P < c.MaxP) || !(math.Abs(p.Magnitude) >= c.MinMagnitude) {
				t.Fatalf("point %d: %+v fails p < %g or |magnitude| ≥ %g", i, p, c.MaxP, c.MinMagnitude)
			}
		}
		if again, _ := Detect(xs, c); !slices.EqualFunc(again, got, samePoint) {
			t.Fatalf("second Detect = %+v, first %+v", again, got)
		}
	})
}

// samePoint reports whether a and b are equal, NaN fields included.
func samePoint(a, b Point) bool {
	bits := func(p Point) [7]uint64 {
		return [7]uint64{math.Float64bits(p.P), math.Float64bits(p.Magnitude), math.Float64bits(p.Before.Mean),
			math.Float64bits(p.Before.SD), math.Float64bits(p.After.Mean), math.Float64bits(p.After.SD), uint64(p.Index)}
	}
	return bits(a) == bits(b) && a.Before.N == b.Before.N && a.After.N == b.After.N && a.Before.Start == b.Before.Start
}

// encode writes xs as little-endian float64s.
func encode(xs []float64) []byte {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// decode reads little-endian float64s, ignoring a partial last one.
func decode(b []byte) []float64 {
	xs := make([]float64, len(b)/8)
	for i := range xs {
		xs[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return xs
}
