package analysis

import (
	"fmt"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// sendIndex maps a transaction's (connection, sequence) to the position of
// its row in sent.csv. Sequences are dense from 0 per connection, so the
// index is a slice per connection indexed by sequence; rows that do not fit
// (a negative or huge connection, a sparse sequence) go to a map.
type sendIndex struct {
	dense  [][]int32 // [conn][seq] → row + 1; 0 when there is none
	sparse map[sendKey]int
}

type sendKey struct {
	conn int
	seq  uint64
}

const (
	maxDenseConns = 1 << 16
	maxRows       = 1<<31 - 2 // rows + 1 must fit an int32
)

// newSendIndex indexes sent, keeping the first row of each (conn, seq); it
// returns how many rows repeated an earlier pair.
func newSendIndex(sent []results.Sent) (ix sendIndex, repeats int) {
	var top []uint64 // per connection: highest seq + 1
	var count []int
	for i := range sent {
		c := sent[i].Conn
		if c < 0 || c >= maxDenseConns || len(sent) > maxRows {
			continue
		}
		if c >= len(top) {
			top = append(top, make([]uint64, c+1-len(top))...)
			count = append(count, make([]int, c+1-len(count))...)
		}
		top[c] = max(top[c], sent[i].Seq+1)
		count[c]++
	}
	ix.dense = make([][]int32, len(top))
	for c, n := range top {
		// Dense when at most half the slots would be empty (plus slack).
		if count[c] > 0 && n <= uint64(2*count[c]+1024) {
			ix.dense[c] = make([]int32, n)
		}
	}
	for i := range sent {
		r := &sent[i]
		if d := ix.denseRow(r.Conn); d != nil && r.Seq < uint64(len(d)) {
			if d[r.Seq] != 0 {
				repeats++
				continue
			}
			d[r.Seq] = int32(i + 1)
			continue
		}
		if ix.sparse == nil {
			ix.sparse = map[sendKey]int{}
		}
		k := sendKey{r.Conn, r.Seq}
		if _, ok := ix.sparse[k]; ok {
			repeats++
			continue
		}
		ix.sparse[k] = i
	}
	return ix, repeats
}

func (ix *sendIndex) denseRow(conn int) []int32 {
	if conn < 0 || conn >= len(ix.dense) {
		return nil
	}
	return ix.dense[conn]
}

// find returns the row of (conn, seq) in sent.csv, or -1.
func (ix *sendIndex) find(conn int, seq uint64) int {
	if d := ix.denseRow(conn); d != nil && seq < uint64(len(d)) {
		return int(d[seq]) - 1
	}
	if i, ok := ix.sparse[sendKey{conn, seq}]; ok {
		return i
	}
	return -1
}

// Per-send state bits.
const (
	stSent      uint8 = 1 << iota // handed to the connection
	stCommitted                   // (conn, seq) is in txs.csv
	stReplyOK                     // a reply accepted it
	stReplyErr                    // a reply refused it
)

// accounts is the reconciliation of the send log with replies and chain.
type accounts struct {
	committed int64
	reasons   map[string]int64
}

// account reconciles sent.csv with replies.csv and txs.csv and puts the
// load-and-accounting figures: every sent transaction lands in exactly one
// of committed, rejected and missing.
func account(in Input, b *builder, noReplies bool) accounts {
	ix, repeats := newSendIndex(in.Sent)
	if repeats > 0 {
		b.note("%d rows of sent.csv repeat an earlier (connection, sequence): counted once", repeats)
	}
	st := make([]uint8, len(in.Sent))
	var errReply []int32 // per sent row: reply row + 1 of its error reply
	lateNs := int64(in.Run.Load.LateThreshold * results.NsPerS)
	lags := make([]float64, 0, len(in.Sent))
	var sent, unsent, late int64
	for i := range in.Sent {
		r := &in.Sent[i]
		if ix.find(r.Conn, r.Seq) != i {
			continue
		}
		if r.Actual == 0 || r.Err != "" {
			unsent++
			continue
		}
		st[i] |= stSent
		sent++
		lag := r.Actual - r.Intended
		lags = append(lags, float64(lag))
		if lag > lateNs {
			late++
		}
	}

	var orphanReplies int
	for j := range in.Replies {
		rp := &in.Replies[j]
		i := ix.find(rp.Conn, rp.Seq)
		if i < 0 {
			orphanReplies++
			continue
		}
		if rp.OK {
			st[i] |= stReplyOK
			continue
		}
		if errReply == nil {
			errReply = make([]int32, len(in.Sent))
		}
		st[i] |= stReplyErr
		if errReply[i] == 0 {
			errReply[i] = int32(j + 1)
		}
	}
	if orphanReplies > 0 {
		b.note("%d rows of replies.csv are for transactions not in sent.csv: ignored", orphanReplies)
	}

	var duplicates, unlogged, committedUnsent int64
	for k := range in.Txs {
		t := &in.Txs[k]
		if t.Duplicate {
			duplicates++
		}
		i := ix.find(t.Conn, t.Seq)
		if i < 0 {
			if !t.Duplicate {
				unlogged++
			}
			continue
		}
		if st[i]&(stSent|stCommitted) == 0 {
			committedUnsent++
		}
		st[i] |= stCommitted
	}
	if unlogged > 0 {
		b.note("%d committed transactions are not in sent.csv (was the send log cut short?): not counted as committed_txs, but in latency", unlogged)
	}
	if committedUnsent > 0 {
		b.note("%d transactions logged as unsent were found on the chain: counted as unsent", committedUnsent)
	}

	acc := accounts{}
	var rejected, missing, unanswered int64
	for i, f := range st {
		if f&stSent == 0 {
			continue
		}
		if f&(stReplyOK|stReplyErr) == 0 {
			unanswered++
		}
		switch {
		case f&stCommitted != 0:
			acc.committed++
		case f&stReplyErr != 0 && f&stReplyOK == 0:
			rejected++
			if acc.reasons == nil {
				acc.reasons = map[string]int64{}
			}
			rp := &in.Replies[errReply[i]-1]
			reason := rp.Message
			if reason == "" {
				reason = fmt.Sprintf("code %d", rp.Code)
			}
			acc.reasons[reason]++
		default:
			missing++
		}
	}

	b.put("sent_txs", float64(sent), "")
	b.put("unsent_txs", float64(unsent), "")
	b.put("committed_txs", float64(acc.committed), "")
	b.put("rejected_txs", float64(rejected), "")
	b.put("missing_txs", float64(missing), "")
	b.put("duplicate_txs", float64(duplicates), "")
	if noReplies {
		b.note("unanswered_txs not computed: no replies.csv, so rejected_txs is 0 and refusals count as missing")
	} else {
		b.put("unanswered_txs", float64(unanswered), "")
	}
	if in.Run.Load.LateThreshold > 0 {
		b.put("late_sends", float64(late), "")
	} else {
		b.note("late_sends not computed: run.json has no late threshold (load.late_threshold_s)")
	}
	b.put("send_lag_p99_ms", Percentile(sortFloats(lags), 99)/results.NsPerMs, "no transaction was sent")
	return acc
}

// sortFloats sorts xs in place and returns it.
func sortFloats(xs []float64) []float64 {
	slices.Sort(xs)
	return xs
}
