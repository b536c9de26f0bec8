package shape

import (
	"math"
	"strings"
	"testing"
	"time"
)

// dues lists every due offset of s.
func dues(s Schedule) []time.Duration {
	var out []time.Duration
	for m := uint64(0); ; m++ {
		d, ok := s.Due(m)
		if !ok {
			return out
		}
		out = append(out, d)
	}
}

func TestSchedules(t *testing.T) {
	const ms, s = time.Millisecond, time.Second
	tests := []struct {
		name string
		spec Spec
		c    int
		want []time.Duration
	}{
		{"constant 4/s 1s", Spec{Rate: 4, Duration: s}, 1, []time.Duration{0, 250 * ms, 500 * ms, 750 * ms}},
		{"constant 2/s ×2 conns", Spec{Kind: Constant, Rate: 2, Duration: s}, 2, []time.Duration{0, 250 * ms, 500 * ms, 750 * ms}},
		// λ = 2+4t, Λ = 2t+2t²: due(m) = (−1+√(1+2m))/2.
		{"ramp 2→6 over 1s", Spec{Kind: Ramp, Rate: 2, RateTo: 6, Duration: s}, 1,
			[]time.Duration{0, 366025403, 618033988, 822875655}},
		// Falling: λ = 6−4t, Λ = 6t−2t²: due(m) = (3−√(9−2m))/2.
		{"ramp 6→2 over 1s", Spec{Kind: Ramp, Rate: 6, RateTo: 2, Duration: s}, 1,
			[]time.Duration{0, 177124344, 381966011, 633974596}},
		{"ramp from 0", Spec{Kind: Ramp, Rate: 0, RateTo: 8, Duration: s}, 1,
			[]time.Duration{0, 500 * ms, 707106781, 866025403}},
		{"steps 1, 2 of 1s", Spec{Kind: Ramp, Steps: []float64{1, 2}, Step: s, Duration: 2 * s}, 1,
			[]time.Duration{0, s, 1500 * ms}},
		{"steps: the last lasts to the end", Spec{Kind: Ramp, Steps: []float64{2, 0, 1}, Step: s, Duration: 4 * s}, 1,
			[]time.Duration{0, 500 * ms, 2 * s, 3 * s}},
		{"square 2/s on 1s off 1s", Spec{Kind: Square, Rate: 2, On: s, Off: s, Duration: 4 * s}, 1,
			[]time.Duration{0, 500 * ms, 2 * s, 2500 * ms}},
		{"square cut in an on phase", Spec{Kind: Square, Rate: 2, On: s, Off: s, Duration: 2500 * ms}, 1,
			[]time.Duration{0, 500 * ms, 2 * s}},
		{"sine without amplitude is constant", Spec{Kind: Sine, Rate: 4, Amplitude: 0, Period: s, Duration: s}, 1,
			[]time.Duration{0, 250 * ms, 500 * ms, 750 * ms}},
		{"trace", Spec{Kind: Trace, Duration: 3 * s, Trace: []Point{{0, 2}, {s, 0}, {2 * s, 4}}}, 1,
			[]time.Duration{0, 500 * ms, 2 * s, 2250 * ms, 2500 * ms, 2750 * ms}},
		{"trace past the end is cut", Spec{Kind: Trace, Duration: 1500 * ms, Trace: []Point{{0, 2}, {s, 4}, {5 * s, 100}}}, 1,
			[]time.Duration{0, 500 * ms, s, 1250 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := New(tt.spec, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			got := dues(sc)
			if len(got) != len(tt.want) || sc.Count() != uint64(len(tt.want)) {
				t.Fatalf("got %d sends (Count %d) %v, want %v", len(got), sc.Count(), got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("due(%d) = %d, want %d", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestSineDue checks the sine's defining property: due(m) is the least
// whole ns at which Λ reaches m.
func TestSineDue(t *testing.T) {
	sc, err := New(Spec{Kind: Sine, Rate: 50, Amplitude: 50, Period: 2 * time.Second, Duration: 5 * time.Second}, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Λ(5 s) = 3·50·5 + 3·50·2/(2π)·(1 − cos 5π) = 750 + 300/π.
	if want := uint64(math.Floor(750 + 300/math.Pi)); sc.Count() != want {
		t.Fatalf("Count = %d, want %d", sc.Count(), want)
	}
	for m := range sc.Count() {
		d, _ := sc.Due(m)
		if sc.Offered(d) < float64(m) || m > 0 && sc.Offered(d-1) >= float64(m) {
			t.Fatalf("due(%d) = %d: Λ there %v, 1 ns before %v", m, d, sc.Offered(d), sc.Offered(d-1))
		}
	}
}

func TestSpecErrors(t *testing.T) {
	s := time.Second
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Kind: "poisson", Duration: s}, `shape "poisson"`},
		{Spec{Kind: Ramp, Rate: 1, RateTo: -1, Duration: s}, "rate_to -1"},
		{Spec{Kind: Ramp, Steps: []float64{1, 2}, Duration: s}, "step 0s"},
		{Spec{Kind: Ramp, Steps: []float64{1, 2, 3}, Step: s, Duration: 2 * s}, "the last would start after the load ends"},
		{Spec{Kind: Square, Rate: 1, Duration: s}, "want on > 0"},
		{Spec{Kind: Sine, Rate: 1, Amplitude: 2, Period: s, Duration: s}, "amplitude 2"},
		{Spec{Kind: Sine, Rate: 1, Duration: s}, "period 0s"},
		{Spec{Kind: Trace, Duration: s}, "no points"},
		{Spec{Kind: Trace, Duration: s, Trace: []Point{{s, 1}}}, "first offset"},
		{Spec{Kind: Trace, Duration: s, Trace: []Point{{0, 1}, {0, 2}}}, "not after"},
		{Spec{Kind: Constant, Rate: 1}, "duration 0s"},
	}
	for _, tt := range tests {
		_, err := New(tt.spec, 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tt.spec, err, tt.want)
		}
	}
}

// rateAt is the oracle's λ(t)/c: the shape's rate per connection at t s.
func rateAt(s Spec, t float64) float64 {
	T := s.Duration.Seconds()
	switch s.Kind {
	case Ramp:
		if len(s.Steps) == 0 {
			return s.Rate + (s.RateTo-s.Rate)*t/T
		}
		return s.Steps[min(int(t/s.Step.Seconds()), len(s.Steps)-1)]
	case Square:
		if math.Mod(t, (s.On+s.Off).Seconds()) < s.On.Seconds() {
			return s.Rate
		}
		return 0
	case Sine:
		return s.Rate + s.Amplitude*math.Sin(2*math.Pi*t/s.Period.Seconds())
	case Trace:
		r := 0.0
		for _, p := range s.Trace {
			if p.Offset.Seconds() <= t {
				r = p.Rate
			}
		}
		return r
	}
	return s.Rate
}

// FuzzSchedule checks every shape: due times never decrease, stay within
// the load, and their number is the offered count Λ(T), checked against a
// numeric integral of the rate.
func FuzzSchedule(f *testing.F) {
	f.Add(uint8(0), uint8(1), 10.0, 20.0, uint16(1000), uint16(300), uint16(200))
	f.Add(uint8(1), uint8(3), 5.0, 50.0, uint16(2000), uint16(500), uint16(100))
	f.Add(uint8(2), uint8(2), 7.0, 0.0, uint16(3000), uint16(700), uint16(300))
	f.Add(uint8(3), uint8(4), 9.0, 4.0, uint16(2500), uint16(900), uint16(0))
	f.Add(uint8(4), uint8(1), 3.0, 1.0, uint16(4000), uint16(1000), uint16(50))
	f.Add(uint8(5), uint8(2), 0.5, 30.0, uint16(1500), uint16(250), uint16(400))
	f.Fuzz(func(t *testing.T, kind, conns uint8, r, r2 float64, durMs, aMs, bMs uint16) {
		if !(r >= 0 && r <= 1000 && r2 >= 0 && r2 <= 1000) || durMs == 0 {
			t.Skip()
		}
		ms := func(v uint16) time.Duration { return time.Duration(v) * time.Millisecond }
		c := int(conns%4) + 1
		s := Spec{Rate: r, Duration: ms(durMs)}
		switch kind % 6 {
		case 1:
			s.Kind, s.RateTo = Ramp, r2
		case 2:
			s.Kind, s.Steps, s.Step = Ramp, []float64{r, r2, r / 2}, ms(aMs)
		case 3:
			s.Kind, s.On, s.Off = Square, ms(aMs), ms(bMs)
		case 4:
			s.Kind, s.Amplitude, s.Period = Sine, min(r2, r), ms(aMs)
		case 5:
			s.Kind, s.Trace = Trace, []Point{{0, r}, {ms(aMs) + 1, r2}, {ms(aMs) + ms(bMs) + 2, r / 3}}
		}
		if s.Kind == Square && s.On+s.Off < 10*time.Millisecond {
			t.Skip() // keep the number of segments small
		}
		sc, err := New(s, c)
		if err != nil || sc.Count() > 100000 {
			t.Skip()
		}
		// The oracle: Λ(T) by the midpoint rule on 20,000 slices.
		const slices = 20000
		T := s.Duration.Seconds()
		integral := 0.0
		for i := range slices {
			integral += rateAt(s, (float64(i)+0.5)*T/slices) * T / slices
		}
		integral *= float64(c)
		total := sc.Offered(s.Duration)
		// A step in the rate falls inside one slice: allow its error.
		if tol := 1e-6*total + 4*float64(c)*1000*T/slices*3; math.Abs(integral-total) > tol {
			t.Fatalf("Λ(T) = %v, numeric integral %v", total, integral)
		}
		if want := uint64(math.Floor(total + countTolerance)); sc.Count() != want {
			t.Fatalf("Count %d, want ⌊%v⌋", sc.Count(), total)
		}
		prev := time.Duration(0)
		for m := range sc.Count() {
			d, ok := sc.Due(m)
			if !ok || d < prev || d > s.Duration {
				t.Fatalf("due(%d) = %v, %v (previous %v, T %v)", m, d, ok, prev, s.Duration)
			}
			prev = d
		}
		if _, ok := sc.Due(sc.Count()); ok {
			t.Fatalf("due(N) is in the schedule")
		}
	})
}

// TestScaled checks every shape at time scale 4: the same number of
// sends, each due 4 times later (to the nanosecond's rounding), and the
// spec itself at k = 1.
func TestScaled(t *testing.T) {
	const s = time.Second
	for _, spec := range []Spec{
		{Rate: 50, Duration: 3 * s},
		{Kind: Ramp, Rate: 10, RateTo: 40, Duration: 4 * s},
		{Kind: Ramp, Steps: []float64{10, 20, 5}, Step: s, Duration: 4 * s},
		{Kind: Square, Rate: 30, On: s, Off: s / 2, Duration: 4 * s},
		{Kind: Sine, Rate: 20, Amplitude: 10, Period: 2 * s, Duration: 4 * s},
		{Kind: Trace, Trace: []Point{{0, 10}, {s, 40}, {2 * s, 0}, {3 * s, 20}}, Duration: 4 * s},
	} {
		t.Run(spec.String(), func(t *testing.T) {
			if one := spec.Scaled(1); one.String() != spec.String() || one.Duration != spec.Duration {
				t.Errorf("k = 1: %v", one)
			}
			base, err := New(spec, 2)
			if err != nil {
				t.Fatal(err)
			}
			sc := spec.Scaled(4)
			if err := sc.Validate(); err != nil {
				t.Fatalf("scaled spec invalid: %v", err)
			}
			scaled, err := New(sc, 2)
			if err != nil {
				t.Fatal(err)
			}
			a, b := dues(base), dues(scaled)
			if len(a) != len(b) {
				t.Fatalf("%d sends unscaled, %d at k = 4", len(a), len(b))
			}
			for i := range a {
				if d := b[i] - 4*a[i]; d < -4 || d > 4 {
					t.Fatalf("send %d due at %v, want 4 × %v", i, b[i], a[i])
				}
			}
		})
	}
	orig := []float64{10, 20}
	sp := Spec{Kind: Ramp, Steps: orig, Step: time.Second, Duration: 2 * time.Second}.Scaled(2)
	if orig[0] != 10 || sp.Steps[0] != 5 {
		t.Errorf("Scaled must copy the steps: original %v, scaled %v", orig, sp.Steps)
	}
}
