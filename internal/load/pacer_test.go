package load

import (
	"math"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

// schedule lists every due offset of p, stopping at limit sends.
func schedule(p Pacer, limit int) []time.Duration {
	var out []time.Duration
	for n := uint64(0); len(out) < limit; n++ {
		d, ok := p.Due(n)
		if !ok {
			break
		}
		out = append(out, d)
	}
	return out
}

func TestPacers(t *testing.T) {
	const ms, s = time.Millisecond, time.Second
	tests := []struct {
		name  string
		p     Pacer
		count int
		want  map[uint64]time.Duration // spot checks of due(n)
	}{
		{"even 400/s 10s", Even(400, 10*s, 0), 4000,
			map[uint64]time.Duration{0: 0, 1: 2500 * time.Microsecond, 2: 5 * ms, 3999: 9*s + 997500*time.Microsecond}},
		{"even 3/s 1s", Even(3, s, 0), 3,
			map[uint64]time.Duration{0: 0, 1: 333333333, 2: 666666666}},
		{"even 1000/s phase 500µs", Even(1000, s, 500*time.Microsecond), 1000,
			map[uint64]time.Duration{0: 500 * time.Microsecond, 1: 1500 * time.Microsecond, 999: 999500 * time.Microsecond}},
		{"even 2.5/s 1s rounds down", Even(2.5, s, 0), 2,
			map[uint64]time.Duration{0: 0, 1: 400 * ms}},
		{"even 0.29/s 100s is 29 despite float error", Even(0.29, 100*s, 0), 29,
			map[uint64]time.Duration{1: 3448275862, 28: 96551724137}},
		{"even 100000/s 10s", Even(100000, 10*s, 0), 1000000,
			map[uint64]time.Duration{1: 10 * time.Microsecond, 999999: 9*s + 999990*time.Microsecond}},
		{"even zero rate", Even(0, s, 0), 0, nil},
		{"even negative rate", Even(-5, s, 0), 0, nil},
		{"even NaN rate", Even(math.NaN(), s, 0), 0, nil},
		{"even infinite rate", Even(math.Inf(1), s, 0), 0, nil},
		{"even zero duration", Even(10, 0, 0), 0, nil},
		{"even under one send", Even(0.5, s, 0), 0, nil},
		{"burst 3/s 2s", Burst(3, 2*s), 6,
			map[uint64]time.Duration{0: 0, 1: 0, 2: 0, 3: s, 4: s, 5: s}},
		{"burst 2.5/s alternates 3, 2", Burst(2.5, 2*s), 5,
			map[uint64]time.Duration{0: 0, 2: 0, 3: s, 4: s}},
		{"burst 0.5/s every 2s", Burst(0.5, 4*s), 2,
			map[uint64]time.Duration{0: 0, 1: 2 * s}},
		{"burst 1000/s 1.5s", Burst(1000, 1500*ms), 1500,
			map[uint64]time.Duration{0: 0, 999: 0, 1000: s, 1499: s}},
		{"burst 0.3/s 10s", Burst(0.3, 10*s), 3,
			map[uint64]time.Duration{0: 0, 1: 3 * s, 2: 6 * s}},
		{"burst zero rate", Burst(0, s), 0, nil},
		{"burst zero duration", Burst(10, 0), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := schedule(tt.p, 2_000_000)
			if len(got) != tt.count {
				t.Fatalf("%d sends, want %d", len(got), tt.count)
			}
			for n, want := range tt.want {
				if d, ok := tt.p.Due(n); !ok || d != want {
					t.Errorf("Due(%d) = %v, %v; want %v, true", n, d, ok, want)
				}
			}
			for i := 1; i < len(got); i++ {
				if got[i] < got[i-1] {
					t.Fatalf("Due(%d) = %v < Due(%d) = %v", i, got[i], i-1, got[i-1])
				}
			}
			if _, ok := tt.p.Due(uint64(tt.count)); ok {
				t.Errorf("Due(%d) is still in the schedule", tt.count)
			}
		})
	}
}

// TestBurstBatches checks loadtime's shape: ⌊rate⌋ sends due at each whole
// second, and an average of rate for a fractional rate.
func TestBurstBatches(t *testing.T) {
	for _, tt := range []struct {
		rate float64
		want []int // sends due at 0 s, 1 s, …
	}{
		{4, []int{4, 4, 4, 4}},
		{2.5, []int{3, 2, 3, 2}},
		{1.25, []int{2, 1, 1, 1}},
	} {
		per := map[time.Duration]int{}
		for _, d := range schedule(Burst(tt.rate, 4*time.Second), 100) {
			per[d]++
		}
		for s, want := range tt.want {
			if got := per[time.Duration(s)*time.Second]; got != want {
				t.Errorf("rate %g: %d sends at %ds, want %d (all: %v)", tt.rate, got, s, want, per)
			}
		}
	}
}

// TestPhasesInterleave checks that the generator's phases turn c connections
// at rate r into one even stream at c·r.
func TestPhasesInterleave(t *testing.T) {
	g, err := New(Config{Endpoint: "ws://127.0.0.1:1/websocket", Connections: 4, Rate: 100, Size: 256,
		Duration: time.Second}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []time.Duration
	for _, c := range g.conns {
		all = append(all, schedule(c.pacer, 1000)...)
	}
	if len(all) != 400 {
		t.Fatalf("%d sends, want 400", len(all))
	}
	seen := map[time.Duration]bool{}
	for _, d := range all {
		if d%(2500*time.Microsecond) != 0 || seen[d] {
			t.Fatalf("due %v is not a distinct multiple of 2.5ms", d)
		}
		seen[d] = true
	}
}

func BenchmarkEvenDue(b *testing.B) {
	p := Even(100000, time.Hour, 3*time.Microsecond)
	var sink time.Duration
	for i := 0; i < b.N; i++ {
		d, _ := p.Due(uint64(i))
		sink += d
	}
	_ = sink
}

func BenchmarkBurstDue(b *testing.B) {
	p := Burst(100000, time.Hour)
	var sink time.Duration
	for i := 0; i < b.N; i++ {
		d, _ := p.Due(uint64(i))
		sink += d
	}
	_ = sink
}

// TestInterleaved checks that c connections' shares of a shaped schedule
// add up to the one stream: every send once, in the schedule's order.
func TestInterleaved(t *testing.T) {
	for _, c := range []int{1, 2, 3, 7} {
		s, err := shape.New(shape.Spec{Kind: shape.Ramp, Rate: 10, RateTo: 300, Duration: 2 * time.Second}, c)
		if err != nil {
			t.Fatal(err)
		}
		total := uint64(0)
		for k := range c {
			p := Interleaved(s, c, k)
			for n := uint64(0); ; n++ {
				d, ok := p.Due(n)
				if !ok {
					break
				}
				if want, _ := s.Due(n*uint64(c) + uint64(k)); d != want {
					t.Fatalf("c=%d conn %d: due(%d) = %v, want %v", c, k, n, d, want)
				}
				total++
			}
		}
		// Λ(2 s) = c·(10+300)/2·2 = 310·c.
		if total != s.Count() || total != uint64(310*c) {
			t.Errorf("c=%d: %d sends, Count %d, want %d", c, total, s.Count(), 310*c)
		}
	}
}
