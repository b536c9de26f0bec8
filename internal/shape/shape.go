package shape

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Kinds of load shape.
const (
	Constant = "constant" // rate r throughout (load.Even, load.Burst)
	Ramp     = "ramp"     // r → rate_to linearly, or steps each lasting step
	Square   = "square"   // r for on, nothing for off, repeated
	Sine     = "sine"     // r + amplitude·sin(2πt/period)
	Trace    = "trace"    // a CSV of offset_s,rate replayed
)

// Kinds lists every shape, constant first.
var Kinds = []string{Constant, Ramp, Square, Sine, Trace}

// Spec is one load shape. Every rate in it is per connection, like the
// manifest's rate: c connections offer c times it together.
type Spec struct {
	Kind      string        // one of Kinds; "" means Constant
	Rate      float64       // r: the constant rate, the ramp's start, the square's on-rate, the sine's mean
	Duration  time.Duration // T, the length of the load
	RateTo    float64       // ramp: the rate at T (a linear ramp; ignored when Steps is set)
	Steps     []float64     // ramp in steps: step i runs from i·Step; the last lasts until T
	Step      time.Duration // ramp in steps: the length of each step
	On, Off   time.Duration // square: the lengths of the on and off phases, on first
	Amplitude float64       // sine: the swing around Rate, ≤ Rate
	Period    time.Duration // sine: the period
	Trace     []Point       // trace: rates from offsets; the last lasts until T
}

// Point is one line of a trace: from Offset on, the rate is Rate.
type Point struct {
	Offset time.Duration
	Rate   float64
}

// String describes s in a few words, rates per connection: "ramp
// 400→2400 tx/s", "square 300 tx/s, on 20s off 10s".
func (s Spec) String() string {
	switch s.Kind {
	case Ramp:
		if len(s.Steps) > 0 {
			return fmt.Sprintf("ramp in steps %v tx/s of %s", s.Steps, s.Step)
		}
		return fmt.Sprintf("ramp %g→%g tx/s", s.Rate, s.RateTo)
	case Square:
		return fmt.Sprintf("square %g tx/s, on %s off %s", s.Rate, s.On, s.Off)
	case Sine:
		return fmt.Sprintf("sine %g±%g tx/s, period %s", s.Rate, s.Amplitude, s.Period)
	case Trace:
		return fmt.Sprintf("trace of %d points", len(s.Trace))
	}
	return fmt.Sprintf("constant %g tx/s", s.Rate)
}

// IsConstant reports whether s is the constant shape.
func (s Spec) IsConstant() bool { return s.Kind == "" || s.Kind == Constant }

// Validate returns every problem with s at once.
func (s Spec) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	rate := func(name string, r float64) {
		if !(r >= 0) || math.IsInf(r, 0) {
			bad("%s %v: want a finite rate >= 0", name, r)
		}
	}
	if s.Duration <= 0 {
		bad("duration %s: want more than 0", s.Duration)
	}
	switch s.Kind {
	case "", Constant, Square:
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			bad("rate %v: want a finite rate > 0", s.Rate)
		}
		if s.Kind == Square && (s.On <= 0 || s.Off < 0) {
			bad("on %s, off %s: want on > 0 and off >= 0", s.On, s.Off)
		}
	case Ramp:
		if len(s.Steps) == 0 {
			rate("rate", s.Rate)
			rate("rate_to", s.RateTo)
			break
		}
		for _, r := range s.Steps {
			rate("step rate", r)
		}
		if s.Step <= 0 {
			bad("step %s: want more than 0", s.Step)
		} else if s.Duration > 0 && time.Duration(len(s.Steps)-1)*s.Step >= s.Duration {
			bad("%d steps of %s: the last would start after the load ends at %s", len(s.Steps), s.Step, s.Duration)
		}
	case Sine:
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			bad("rate %v: want a finite mean rate > 0", s.Rate)
		}
		if !(s.Amplitude >= 0 && s.Amplitude <= s.Rate) {
			bad("amplitude %v: want between 0 and the mean rate %v, so the rate never goes below 0", s.Amplitude, s.Rate)
		}
		if s.Period <= 0 {
			bad("period %s: want more than 0", s.Period)
		}
	case Trace:
		if len(s.Trace) == 0 {
			bad("trace: no points")
		} else if err := checkTrace(s.Trace); err != nil {
			errs = append(errs, err)
		}
	default:
		bad("shape %q: want one of %v", s.Kind, Kinds)
	}
	return errors.Join(errs...)
}

// checkTrace checks the points of a trace built in Go (ParseTrace checks a
// file's, naming the line).
func checkTrace(ps []Point) error {
	if ps[0].Offset != 0 {
		return fmt.Errorf("trace: first offset %s: want 0", ps[0].Offset)
	}
	for i, p := range ps {
		if !(p.Rate >= 0) || math.IsInf(p.Rate, 0) {
			return fmt.Errorf("trace point %d: rate %v: want a finite rate >= 0", i+1, p.Rate)
		}
		if i > 0 && p.Offset <= ps[i-1].Offset {
			return fmt.Errorf("trace point %d: offset %s not after %s", i+1, p.Offset, ps[i-1].Offset)
		}
	}
	return nil
}

// Schedule is the combined stream of all c connections of a shaped load: a
// pure function from a send's number m (counted from 0 across connections)
// to when it is due. With Λ(t) the number of sends the shape offers by t
// (the integral of c times its rate),
//
//	due(m) = inf{ t : Λ(t) > m }    for 0 ≤ m < N
//	N      = ⌊Λ(T)⌋
//
// so send m is due the moment the offered count passes it: a constant rate
// R = c·r gives due(m) = m/R, and an off phase holds sends back to its end.
// Connection k of c takes sends k, k+c, k+2c, … (see load.Interleaved),
// which keeps the c connections one stream of the shape's combined rate.
type Schedule interface {
	Due(m uint64) (time.Duration, bool)
	// Count is N, the number of sends of the whole schedule.
	Count() uint64
	// Offered returns Λ(t), the number of sends offered by t (0 ≤ t ≤ T).
	Offered(t time.Duration) float64
}

// countTolerance absorbs float error in Λ(T), so that 0.29 tx/s for 100 s
// is 29 sends and not 28.
const countTolerance = 1e-9

// New returns the schedule of s for c connections. The constant shape is a
// linear ramp from r to r: due(m) = m/(c·r).
func New(s Spec, c int) (Schedule, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if c < 1 {
		return nil, fmt.Errorf("connections %d: want at least 1", c)
	}
	k := float64(c)
	T := s.Duration.Seconds()
	var segs []segment
	add := func(length, a, b float64) {
		start := 0.0
		if n := len(segs); n > 0 {
			start = segs[n-1].start + segs[n-1].length
		}
		if start >= T || length <= 0 {
			return
		}
		if start+length > T {
			// Cut at T, the rate at the cut interpolated.
			b = a + (b-a)*(T-start)/length
			length = T - start
		}
		segs = append(segs, segment{start: start, length: length, a: k * a, b: k * b})
	}
	switch s.Kind {
	case "", Constant:
		add(T, s.Rate, s.Rate)
	case Ramp:
		if len(s.Steps) == 0 {
			add(T, s.Rate, s.RateTo)
			break
		}
		for i, r := range s.Steps {
			l := s.Step.Seconds()
			if i == len(s.Steps)-1 {
				l = T - float64(i)*s.Step.Seconds()
			}
			add(l, r, r)
		}
	case Square:
		for i := 0; float64(i)*(s.On+s.Off).Seconds() < T; i++ {
			add(s.On.Seconds(), s.Rate, s.Rate)
			add(s.Off.Seconds(), 0, 0)
		}
	case Sine:
		return newSine(s, k), nil
	case Trace:
		for i, p := range s.Trace {
			l := T - p.Offset.Seconds()
			if i+1 < len(s.Trace) {
				l = (s.Trace[i+1].Offset - p.Offset).Seconds()
			}
			add(l, p.Rate, p.Rate)
		}
	}
	return newPiecewise(segs), nil
}

// segment is a stretch of a piecewise schedule whose combined rate goes
// linearly from a to b (tx/s) over length seconds from start; cum is Λ at
// its start.
type segment struct {
	start, length, a, b, cum float64
}

// count is the number of sends the segment offers: (a+b)/2 · length.
func (g segment) count() float64 { return (g.a + g.b) / 2 * g.length }

// at returns the time into the segment at which it has offered x sends
// (0 ≤ x ≤ count): the root of a·τ + (b−a)·τ²/(2·length) = x, written
//
//	τ = 2x / (a + √(a² + 2(b−a)x/length))
//
// which stays exact for a flat segment (τ = x/a) and a ramp from 0.
func (g segment) at(x float64) float64 {
	if x <= 0 {
		return 0
	}
	d := g.a*g.a + 2*(g.b-g.a)*x/g.length
	tau := 2 * x / (g.a + math.Sqrt(max(d, 0)))
	return min(max(tau, 0), g.length)
}

type piecewise struct {
	segs []segment
	n    uint64
}

func newPiecewise(segs []segment) piecewise {
	cum := 0.0
	for i := range segs {
		segs[i].cum = cum
		cum += segs[i].count()
	}
	p := piecewise{segs: segs}
	if cum > 0 {
		p.n = uint64(math.Floor(cum + countTolerance))
	}
	return p
}

func (p piecewise) Count() uint64 { return p.n }

func (p piecewise) Due(m uint64) (time.Duration, bool) {
	if m >= p.n {
		return 0, false
	}
	x := float64(m)
	// The first segment whose offered count at its end passes m.
	i := sort.Search(len(p.segs), func(i int) bool {
		g := p.segs[i]
		return g.cum+g.count() > x
	})
	if i == len(p.segs) {
		// Only float error can get here (m < N ≤ Λ(T)): the end.
		i = len(p.segs) - 1
	}
	g := p.segs[i]
	return seconds(g.start + g.at(x-g.cum)), true
}

func (p piecewise) Offered(t time.Duration) float64 {
	s := t.Seconds()
	total := 0.0
	for _, g := range p.segs {
		if s <= g.start {
			break
		}
		tau := min(s-g.start, g.length)
		total = g.cum + g.a*tau + (g.b-g.a)*tau*tau/(2*g.length)
	}
	return total
}

// sine is the schedule of λ(t) = c·(M + A·sin(2πt/P)), whose offered count
//
//	Λ(t) = c·(M·t + A·P/(2π)·(1 − cos(2πt/P)))
//
// is inverted by bisection to the nanosecond: due(m) is the least whole ns
// t with Λ(t) ≥ m.
type sine struct {
	m, a, p float64 // combined mean and amplitude (tx/s), period (s)
	dur     time.Duration
	n       uint64
}

func newSine(s Spec, k float64) sine {
	g := sine{m: k * s.Rate, a: k * s.Amplitude, p: s.Period.Seconds(), dur: s.Duration}
	g.n = uint64(math.Floor(g.Offered(s.Duration) + countTolerance))
	return g
}

func (g sine) Count() uint64 { return g.n }

func (g sine) Offered(t time.Duration) float64 {
	s := t.Seconds()
	return g.m*s + g.a*g.p/(2*math.Pi)*(1-math.Cos(2*math.Pi*s/g.p))
}

func (g sine) Due(m uint64) (time.Duration, bool) {
	if m >= g.n {
		return 0, false
	}
	// The least whole ns t with Λ(t) ≥ m (Λ has no flat stretch, so this
	// is the infimum rounded up to the ns); Λ never decreases.
	x := float64(m)
	lo, hi := time.Duration(-1), g.dur // Λ(lo) < x ≤ Λ(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if g.Offered(mid) >= x {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// seconds converts float seconds to a Duration, rounding down to the ns.
func seconds(s float64) time.Duration { return time.Duration(math.Floor(s * 1e9)) }

// Scaled returns s at time scale k (a time-scaled testnet): every time
// (Duration, Step, On, Off, Period, the trace's offsets) ×k and every
// rate ÷k, so that its schedule sends the same transactions over k times
// the time (Count is the same but for floating point); s itself when k
// is 0 or 1. The slices are copied.
func (s Spec) Scaled(k float64) Spec {
	if k == 0 || k == 1 {
		return s
	}
	d := func(v time.Duration) time.Duration { return time.Duration(math.Round(float64(v) * k)) }
	s.Rate, s.RateTo, s.Amplitude = s.Rate/k, s.RateTo/k, s.Amplitude/k
	s.Duration, s.Step, s.On, s.Off, s.Period = d(s.Duration), d(s.Step), d(s.On), d(s.Off), d(s.Period)
	if s.Steps != nil {
		steps := make([]float64, len(s.Steps))
		for i, r := range s.Steps {
			steps[i] = r / k
		}
		s.Steps = steps
	}
	if s.Trace != nil {
		tr := make([]Point, len(s.Trace))
		for i, p := range s.Trace {
			tr[i] = Point{Offset: d(p.Offset), Rate: p.Rate / k}
		}
		s.Trace = tr
	}
	return s
}
