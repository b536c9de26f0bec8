package shape

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// MaxTracePoints bounds a trace file, so that a wrong file (a log, a
// binary) is refused rather than read into memory.
const MaxTracePoints = 1_000_000

// ReadTrace reads the trace file at path; see ParseTrace.
func ReadTrace(path string) ([]Point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	return ParseTrace(path, f)
}

// ParseTrace reads a trace: one point a line, "offset_s,rate", the offset
// in seconds from the start of the load and the rate in tx/s per
// connection from then on (until the next point, the last until the end of
// the load). Offsets start at 0 and increase strictly; rates are >= 0.
// Blank lines, lines starting with # and a first line "offset_s,rate" are
// skipped. Errors name file:line.
//
//	offset_s,rate
//	0,200
//	30,800
//	60,200
func ParseTrace(file string, r io.Reader) ([]Point, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<16)
	var ps []Point
	line := 0
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if len(ps) == 0 && strings.ReplaceAll(text, " ", "") == "offset_s,rate" {
			continue
		}
		off, rate, ok := strings.Cut(text, ",")
		if !ok || strings.Contains(rate, ",") {
			return nil, bad("want two fields offset_s,rate, got %q", text)
		}
		o, err := number(off)
		if err != nil || o < 0 || o > maxOffsetS {
			return nil, bad("offset %q: want seconds >= 0 (at most %g)", strings.TrimSpace(off), float64(maxOffsetS))
		}
		v, err := number(rate)
		if err != nil || v < 0 {
			return nil, bad("rate %q: want tx/s >= 0", strings.TrimSpace(rate))
		}
		p := Point{Offset: seconds(o), Rate: v}
		switch {
		case len(ps) == 0 && p.Offset != 0:
			return nil, bad("first offset %v s: want 0", o)
		case len(ps) > 0 && p.Offset <= ps[len(ps)-1].Offset:
			return nil, bad("offset %v s is not after the previous one (%v s): offsets must increase", o, ps[len(ps)-1].Offset.Seconds())
		case len(ps) == MaxTracePoints:
			return nil, bad("more than %d points", MaxTracePoints)
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", file, line+1, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no points (want lines offset_s,rate)", file)
	}
	return ps, nil
}

// maxOffsetS is the largest offset a trace may give: a year, far inside
// what a time.Duration holds.
const maxOffsetS = 366 * 24 * 3600

// number parses a finite decimal number.
func number(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(s, "xXpP_iInN") {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v, nil
}
