package experiment

import (
	"slices"
	"testing"
	"time"
)

// TestCommittedRateSteady: a steady 200 tx/s committed in blocks of
// various intervals reads 200 tx/s on every live line, whenever the lines
// are printed and however far behind the reader is; counting the blocks
// committed in each 5-s wall window, as the live line did, reads 240 and
// 192 by turns with blocks of 1.2 s.
func TestCommittedRateSteady(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC).UnixNano()
	const s = int64(time.Second)
	for _, tc := range []struct {
		name      string
		intervals []time.Duration // block intervals, repeated
		lag       []time.Duration // how far behind the reader is at each line, repeated
	}{
		{"1.2-s blocks", []time.Duration{1200 * time.Millisecond}, []time.Duration{0}},
		{"1.2-s blocks, reader 0-2.4 s behind", []time.Duration{1200 * time.Millisecond}, []time.Duration{0, 2400 * time.Millisecond, 700 * time.Millisecond, 1900 * time.Millisecond}},
		{"blocks of 1 and 1.4 s", []time.Duration{time.Second, 1400 * time.Millisecond}, []time.Duration{300 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Commits for 2 minutes, each block holding 200 tx/s × its interval.
			var commits []commitMark
			at, txs := t0, int64(0)
			for h := int64(1); at < t0+120*s; h++ {
				iv := tc.intervals[int(h)%len(tc.intervals)]
				at += int64(iv)
				txs += 200 * int64(iv) / s
				commits = append(commits, commitMark{Height: h, At: at, Txs: txs})
			}
			// readAt is the last commit a reader lag behind has read at wall time w.
			readAt := func(w int64) commitMark {
				var m commitMark
				for _, c := range commits {
					if c.At <= w {
						m = c
					}
				}
				return m
			}
			var prev commitMark
			var old []int64
			for line := 1; t0+int64(line+1)*5*s < t0+120*s; line++ {
				w := t0 + int64(line)*5*s
				cur := readAt(w - int64(tc.lag[line%len(tc.lag)]))
				if prev.At == 0 {
					prev = commits[0] // the first commit read
				}
				if got := committedRate(prev, cur, w); got != "200 tx/s" {
					t.Errorf("line at %ds (heights %d…%d): %q, want 200 tx/s", line*5, prev.Height, cur.Height, got)
				}
				prev = cur
				// The old count: the blocks committed in the 5-s wall window.
				before, now := readAt(w-5*s), readAt(w)
				old = append(old, (now.Txs-before.Txs)/5)
			}
			slices.Sort(old)
			old = slices.Compact(old)
			if len(old) < 2 {
				t.Errorf("5-s wall windows read %v tx/s, want the beat the live line had", old)
			}
		})
	}
}

// TestCommittedRateEdges: without two commits the live line says why it
// has no rate rather than printing 0 or the last one.
func TestCommittedRateEdges(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC).UnixNano()
	sec := func(f float64) int64 { return t0 + int64(f*float64(time.Second)) }
	a := commitMark{Height: 10, At: sec(1), Txs: 1000}
	for _, tc := range []struct {
		name      string
		prev, cur commitMark
		now       int64
		want      string
	}{
		{"no commit yet", commitMark{}, commitMark{}, sec(5), "— tx/s (no commit yet)"},
		{"one commit: the first read is the last", a, a, sec(3), "— tx/s (last commit 2s ago)"},
		{"no anchor yet", commitMark{}, a, sec(3), "— tx/s (last commit 2s ago)"},
		{"stalled since the previous line", a, a, sec(13.4), "— tx/s (last commit 12s ago)"},
		{"clock behind the BFT time", a, a, sec(0.5), "— tx/s (last commit 0s ago)"},
		{"steady", a, commitMark{Height: 14, At: sec(5.8), Txs: 1960}, sec(7), "200 tx/s"},
		{"one block after a stall", a, commitMark{Height: 11, At: sec(16), Txs: 1100}, sec(17), "7 tx/s"},
		{"blocks without the run's transactions", a, commitMark{Height: 14, At: sec(5.8), Txs: 1000}, sec(7), "0 tx/s"},
		{"BFT time going back", a, commitMark{Height: 12, At: sec(0.5), Txs: 1200}, sec(7), "— tx/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := committedRate(tc.prev, tc.cur, tc.now); got != tc.want {
				t.Errorf("committedRate(%+v, %+v) = %q, want %q", tc.prev, tc.cur, got, tc.want)
			}
		})
	}
}
