package load

import (
	"fmt"
	"math"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

// Pacer is the schedule of one connection: a pure function from a send's
// number to when it is due, with no clock and no state, so it can be tested
// with exact offsets and shared by nothing.
type Pacer interface {
	// Due returns the offset from the start of the load at which send n
	// (counted from 0) is due, and false once n is past the end of the
	// schedule. Offsets never decrease with n.
	Due(n uint64) (time.Duration, bool)
}

// countTolerance absorbs float error in rate·duration, so that 0.29 tx/s for
// 100 s is 29 sends and not 28.
const countTolerance = 1e-9

// sends returns ⌊rate·duration⌋, the number of sends of a schedule, or 0
// when rate or duration is not positive (or rate is not finite).
func sends(rate float64, duration time.Duration) uint64 {
	if !(rate > 0) || math.IsInf(rate, 1) || duration <= 0 {
		return 0
	}
	return uint64(math.Floor(rate*duration.Seconds() + countTolerance))
}

// Even returns the pacer that spaces sends evenly, 1/rate apart, starting at
// phase:
//
//	due(n) = phase + ⌊n·10⁹ / rate⌋ ns    for 0 ≤ n < N
//	N      = ⌊rate · duration⌋            (rate in tx/s, duration in s)
//
// The generator gives connection k of c the phase k/(c·rate), so the c
// connections interleave into one even stream of c·rate tx/s. A rate or
// duration that is not positive gives an empty schedule.
func Even(rate float64, duration, phase time.Duration) Pacer {
	return even{rate: rate, n: sends(rate, duration), phase: phase}
}

type even struct {
	rate  float64
	n     uint64
	phase time.Duration
}

func (p even) Due(n uint64) (time.Duration, bool) {
	if n >= p.n {
		return 0, false
	}
	// float64(n)·1e9 is exact for n < 2^53/1e9 ≈ 9·10⁶ and the division is
	// correctly rounded, so the floor is exact wherever the true offset is
	// a whole number of ns; beyond that it is within 1 ns.
	return p.phase + time.Duration(float64(n)*1e9/p.rate), true
}

func (p even) String() string {
	return fmt.Sprintf("even{%g/s, %d sends, phase %s}", p.rate, p.n, p.phase)
}

// Burst returns the pacer of loadtime (tm-load-test): once a second, the
// sends of that second all fall due together at the start of it:
//
//	due(n) = ⌊n / rate⌋ s                 for 0 ≤ n < N
//	N      = ⌊rate · duration⌋
//
// With a whole rate r that is r sends at 0 s, r at 1 s, and so on; with a
// fractional rate the batches alternate so that they average to rate (2.5/s
// gives 3, 2, 3, 2, …), and a rate below 1 sends one tx every 1/rate s,
// rounded down to the second. A rate or duration that is not positive gives
// an empty schedule.
func Burst(rate float64, duration time.Duration) Pacer {
	return burst{rate: rate, n: sends(rate, duration)}
}

type burst struct {
	rate float64
	n    uint64
}

func (p burst) Due(n uint64) (time.Duration, bool) {
	if n >= p.n {
		return 0, false
	}
	return time.Duration(math.Floor(float64(n)/p.rate+countTolerance)) * time.Second, true
}

func (p burst) String() string {
	return fmt.Sprintf("burst{%g/s, %d sends}", p.rate, p.n)
}

// Interleaved returns connection k's share of the c-connection schedule s:
// its sends are s's sends k, k+c, k+2c, …, so
//
//	due(n) = s.due(n·c + k)               for n·c + k < N
//
// and the c connections together send s's one stream (N sends in all).
func Interleaved(s shape.Schedule, c, k int) Pacer {
	return interleaved{s: s, c: uint64(c), k: uint64(k)}
}

type interleaved struct {
	s    shape.Schedule
	c, k uint64
}

func (p interleaved) Due(n uint64) (time.Duration, bool) {
	if n > (math.MaxUint64-p.k)/p.c {
		return 0, false
	}
	return p.s.Due(n*p.c + p.k)
}
