package deploy

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// fakeHost answers each line with its clock (the virtual clock plus
// offset), the request taking out[i] and the answer back[i] of virtual
// time on sample i.
type fakeHost struct {
	mu        sync.Mutex
	clock     time.Time
	offset    time.Duration
	out, back []time.Duration
}

func (f *fakeHost) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clock
}

func (f *fakeHost) serve(r io.Reader, w io.Writer) {
	br := bufio.NewReader(r)
	for i := 0; ; i++ {
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
		f.mu.Lock()
		f.clock = f.clock.Add(f.out[i])
		remote := f.clock.Add(f.offset)
		f.clock = f.clock.Add(f.back[i])
		f.mu.Unlock()
		answer := fmt.Sprintf("%d.%09d\n", remote.Unix(), remote.Nanosecond())
		if i%2 == 1 { // bash's $EPOCHREALTIME: microseconds
			answer = fmt.Sprintf("%d.%06d\n", remote.Unix(), remote.Nanosecond()/1000)
		}
		if _, err := io.WriteString(w, answer); err != nil {
			return
		}
	}
}

func TestMeasureClock(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name            string
		offset          time.Duration
		out, back       []time.Duration
		wantOffset, unc time.Duration
	}{
		{"symmetric", 5 * time.Second, []time.Duration{ms}, []time.Duration{ms}, 5 * time.Second, ms + 1},
		// The remote read its clock 1 ms after the send, 9 ms before the
		// answer: the estimate is off by 4 ms, within the 5 ms bound.
		{"asymmetric", -2 * time.Second, []time.Duration{ms}, []time.Duration{9 * ms}, -2*time.Second - 4*ms, 5*ms + 1},
		// The shortest round trip (the third) wins; the 1-µs resolution
		// of the second and fourth answers ($EPOCHREALTIME) widens theirs.
		{"shortest", 300 * ms, []time.Duration{20 * ms, 3 * ms, ms / 2, 40 * ms}, []time.Duration{ms, 9 * ms, ms / 2, ms},
			300 * ms, ms/2 + 1},
		// Truncated to a microsecond, the second answer reads 567 ns early:
		// the bound, widened by the resolution, still holds.
		{"truncated", 1234567 * time.Nanosecond, []time.Duration{ms, 10 * time.Microsecond}, []time.Duration{ms, 10 * time.Microsecond},
			1234 * time.Microsecond, 10*time.Microsecond + time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeHost{clock: time.Unix(1_700_000_000, 0), offset: tc.offset, out: tc.out, back: tc.back}
			reqR, reqW := io.Pipe()
			ansR, ansW := io.Pipe()
			go f.serve(reqR, ansW)
			c, err := measureClock(reqW, bufio.NewReader(ansR), len(tc.out), f.now)
			reqW.Close()
			if err != nil {
				t.Fatal(err)
			}
			if c.Offset != tc.wantOffset || c.Uncertainty != tc.unc || c.Samples != len(tc.out) {
				t.Errorf("offset %s ± %s (%d samples), want %s ± %s", c.Offset, c.Uncertainty, c.Samples, tc.wantOffset, tc.unc)
			}
			if err := c.Offset - tc.offset; err > c.Uncertainty || -err > c.Uncertainty {
				t.Errorf("true offset %s outside %s ± %s", tc.offset, c.Offset, c.Uncertainty)
			}
		})
	}
}

func TestMeasureClockBadAnswer(t *testing.T) {
	reqR, reqW := io.Pipe()
	ansR, ansW := io.Pipe()
	go func() {
		br := bufio.NewReader(reqR)
		br.ReadString('\n')
		io.WriteString(ansW, "1700000000N\n") // a date without %N
	}()
	if _, err := measureClock(reqW, bufio.NewReader(ansR), 3, time.Now); err == nil {
		t.Error("a non-numeric answer was taken")
	}
}

func TestParseUnix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1700000000.123456789", 1700000000123456789, true},
		{"1700000000.123456", 1700000000123456000, true},
		{"1700000000,5", 1700000000500000000, true},
		{"1700000000", 1700000000000000000, true},
		{"1700000000.1234567890", 0, false},
		{"1700000000N", 0, false},
		{"-1.5", 0, false},
		{"1.-5", 0, false},
		{"", 0, false},
		{".5", 0, false},
	} {
		got, _, err := parseUnix(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseUnix(%q) = %d, %v; want %d (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzParseUnix(f *testing.F) {
	for _, s := range []string{"1700000000.123456789", "1700000000,5", "1", "x", "1.-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, res, err := parseUnix(s)
		if err != nil {
			return
		}
		if ns < 0 || res <= 0 || res > time.Second {
			t.Errorf("parseUnix(%q) = %d, resolution %s", s, ns, res)
		}
	})
}
