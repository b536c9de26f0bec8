package experiment

import (
	"fmt"
	"math"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
)

// commitMark is the chain as the live reader has read it: the last height
// read, its commit time (Unix ns: the time of the next block, as in
// blocks.csv) and the run's transactions in the heights read so far
// (blocks.csv's run_txs summed, duplicates included). At 0 means no height
// read yet.
type commitMark struct {
	Height int64
	At     int64
	Txs    int64
}

// committedRate returns the live line's committed rate: the run's
// transactions committed in the heights after prev up to cur, divided by
// the time between their commits,
//
//	rate = (cur.Txs − prev.Txs) / ((cur.At − prev.At) / 1 s)
//
// where cur is the last commit read before this line and prev the last
// read before the previous line (or, before a line has one, the first
// read). This is analysis.SlidingRates, the plots' rate between commits
// (total_txs_rate.png, compare's txs/min), over a window from one commit
// to the other: both ends are commits, so a steady load reads steady
// whatever the block interval, where a count of the blocks read in each
// 5-s wall window beats with the blocks (4 or 5 blocks of 1.2 s).
//
// Without two commits there is no rate, and the text says why instead of
// printing 0 or the last rate: "— tx/s (no commit yet)" before any
// height is read; "— tx/s (last commit 7s ago)" when no commit was read
// after prev (a stalled chain, or only one commit so far), 7s = now − cur.At. It is pure.
func committedRate(prev, cur commitMark, now int64) string {
	switch {
	case cur.At == 0:
		return "— tx/s (no commit yet)"
	case prev.At == 0 || cur.Height <= prev.Height:
		age := time.Duration(max(0, now-cur.At)).Round(time.Second)
		return fmt.Sprintf("— tx/s (last commit %s ago)", age)
	case cur.At <= prev.At: // BFT time increases with the height; not a window
		return "— tx/s"
	}
	r := analysis.SlidingRates([]int64{prev.At, cur.At}, []float64{float64(prev.Txs), float64(cur.Txs)}, cur.At-prev.At)[1]
	if math.IsNaN(r) {
		return "— tx/s"
	}
	return fmt.Sprintf("%.0f tx/s", r)
}
