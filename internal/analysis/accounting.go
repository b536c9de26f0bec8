package analysis

import (
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// accounts is the reconciliation of the send log with replies and chain.
type accounts struct {
	committed int64
	reasons   map[string]int64 // rejected, by reason
	refusals  map[string]int64 // refused, by reason
	clients   []ClientSummary  // per load client; nil for one
	lostAcked int64            // accepted by a reply, never committed; -1 without replies.csv
}

// account reconciles sent.csv with replies.csv and txs.csv (as gathered
// in a) and puts the load-and-accounting figures: every sent transaction
// lands in exactly one of committed, rejected and missing.
func account(a *TxAggregates, run results.Run, b *builder, noReplies bool) accounts {
	if a.repeats > 0 {
		b.note("%d rows of sent.csv repeat an earlier (connection, sequence): counted once", a.repeats)
	}
	if a.orphanReplies > 0 {
		b.note("%d rows of replies.csv are for transactions not in sent.csv: ignored", a.orphanReplies)
	}
	if a.unlogged > 0 {
		b.note("%d committed transactions are not in sent.csv (was the send log cut short?): not counted as committed_txs, but in latency", a.unlogged)
	}
	if a.committedUnsnt > 0 {
		b.note("%d transactions logged as unsent were found on the chain: counted as unsent", a.committedUnsnt)
	}

	acc := accounts{clients: newClients(run)}
	var rejected, refused, missing, unanswered int64
	tally := func(m *map[string]int64, reason string) {
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[reason]++
	}
	a.led.each(func(conn int, f uint8, reason string) {
		var c *ClientSummary
		if i := run.Load.ClientOf(conn); i >= 0 {
			c = &acc.clients[i]
		}
		if f&stSent == 0 {
			if c != nil {
				c.Unsent++
			}
			return
		}
		if f&(stReplyOK|stReplyErr) == 0 {
			unanswered++
		}
		if f&stReplyOK != 0 && f&stCommitted == 0 {
			acc.lostAcked++
		}
		var n *int64 // the client's count of this fate
		switch {
		case f&stCommitted != 0:
			acc.committed++
			if c != nil {
				n = &c.Committed
			}
		case f&stReplyErr != 0 && f&stReplyOK == 0 && f&stRefused != 0:
			refused++
			tally(&acc.refusals, reason)
			if c != nil {
				n = &c.Refused
				tally(&c.Reasons, reason)
			}
		case f&stReplyErr != 0 && f&stReplyOK == 0:
			rejected++
			tally(&acc.reasons, reason)
			if c != nil {
				n = &c.Rejected
				tally(&c.Reasons, reason)
			}
		default:
			missing++
			if c != nil {
				n = &c.Missing
			}
		}
		if c != nil {
			c.Sent++
			*n++
		}
	})
	sent, unsent, late, duplicates := a.sent, a.unsent, a.late, a.duplicates
	b.put("sent_txs", float64(sent), "")
	b.put("unsent_txs", float64(unsent), "")
	b.put("committed_txs", float64(acc.committed), "")
	if refused > 0 || run.Sentinel != nil {
		b.put("refused_txs", float64(refused), "")
	}
	b.put("rejected_txs", float64(rejected), "")
	b.put("missing_txs", float64(missing), "")
	b.put("duplicate_txs", float64(duplicates), "")
	if noReplies {
		acc.lostAcked = -1
		b.note("unanswered_txs not computed: no replies.csv, so rejected_txs is 0 and refusals count as missing")
	} else {
		b.put("unanswered_txs", float64(unanswered), "")
	}
	if run.Load.LateThreshold > 0 {
		b.put("late_sends", float64(late), "")
	} else {
		b.note("late_sends not computed: run.json has no late threshold (load.late_threshold_s)")
	}
	b.put("send_lag_p99_ms", a.lag.Percentile(99)/results.NsPerMs, "no transaction was sent")
	return acc
}

// sortFloats sorts xs in place and returns it.
func sortFloats(xs []float64) []float64 {
	slices.Sort(xs)
	return xs
}
