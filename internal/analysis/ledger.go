package analysis

import (
	"fmt"
	"slices"
)

// ledger holds the state of every (connection, sequence) of sent.csv: one
// byte, and two more for the reason of a refusal once a reply refused one.
// Sequences are dense from 0 per connection, so the state is a slice per
// connection indexed by sequence; rows that do not fit (a negative or
// huge connection, a sparse sequence) go to a map.
type ledger struct {
	dense    [][]uint8  // [conn][seq] → state
	reason   [][]uint16 // [conn][seq] → reason id (1-based); allocated on first refusal
	sparse   map[sendKey]*sparseSend
	reasons  []string // id − 1 → message
	reasonID map[string]uint16
}

type sendKey struct {
	conn int
	seq  uint64
}

type sparseSend struct {
	st     uint8
	reason uint16
}

// Per-send state bits.
const (
	stLogged    uint8 = 1 << iota // a row of sent.csv
	stSent                        // handed to the connection
	stCommitted                   // (conn, seq) is in txs.csv
	stReplyOK                     // a reply accepted it
	stReplyErr                    // a reply refused it
	stRefused                     // … and that reply was a gateway's refusal (results.IsRefusal)
)

const (
	maxDenseConns = 1 << 16
	// denseSlack is how far past a connection's highest sequence a new
	// one may be and still grow its slice.
	denseSlack = 1 << 16
	maxReasons = 1<<16 - 2
)

// log records a row of sent.csv and returns its state, or nil when the
// pair was logged already (a repeat, counted once).
func (l *ledger) log(conn int, seq uint64) *uint8 {
	if conn >= 0 && conn < maxDenseConns {
		if conn >= len(l.dense) {
			l.dense = append(l.dense, make([][]uint8, conn+1-len(l.dense))...)
		}
		d := l.dense[conn]
		if seq < uint64(len(d)) {
			if d[seq] != 0 {
				return nil
			}
			d[seq] = stLogged
			return &d[seq]
		}
		if seq < uint64(2*len(d)+denseSlack) {
			d = slices.Grow(d, int(seq)+1-len(d))
			d = d[:seq+1]
			l.dense[conn] = d
			d[seq] = stLogged
			return &d[seq]
		}
	}
	if l.sparse == nil {
		l.sparse = map[sendKey]*sparseSend{}
	}
	k := sendKey{conn, seq}
	if _, ok := l.sparse[k]; ok {
		return nil
	}
	e := &sparseSend{st: stLogged}
	l.sparse[k] = e
	return &e.st
}

// find returns the state of a logged (conn, seq), nil when sent.csv has
// no such row.
func (l *ledger) find(conn int, seq uint64) *uint8 {
	if conn >= 0 && conn < len(l.dense) && seq < uint64(len(l.dense[conn])) {
		if s := &l.dense[conn][seq]; *s != 0 {
			return s
		}
	}
	if e := l.sparse[sendKey{conn, seq}]; e != nil {
		return &e.st
	}
	return nil
}

// refuse records message as the reason (code's when there is none) of
// the logged (conn, seq), unless a reason was recorded for it already.
func (l *ledger) refuse(conn int, seq uint64, message string, code int64) {
	if conn >= 0 && conn < len(l.dense) && seq < uint64(len(l.dense[conn])) && l.dense[conn][seq] != 0 {
		if len(l.reason) <= conn {
			l.reason = append(l.reason, make([][]uint16, conn+1-len(l.reason))...)
		}
		r := l.reason[conn]
		if uint64(len(r)) <= seq {
			r = append(r, make([]uint16, len(l.dense[conn])-len(r))...)
			l.reason[conn] = r
		}
		if r[seq] == 0 {
			r[seq] = l.intern(message, code)
		}
		return
	}
	if e := l.sparse[sendKey{conn, seq}]; e != nil && e.reason == 0 {
		e.reason = l.intern(message, code)
	}
}

// intern returns the id of a refusal's reason. Messages that differ only
// in their numbers ("mempool is full: number of txs 5003 (max: 5000)")
// are one reason, told by the first message seen.
func (l *ledger) intern(message string, code int64) uint16 {
	key := withoutNumbers(message)
	if message == "" {
		message = fmt.Sprintf("code %d", code)
		key = message
	}
	if id, ok := l.reasonID[key]; ok {
		return id
	}
	if len(l.reasons) >= maxReasons {
		message = "(other messages: more than 65,534 distinct ones)"
		key = message
		if id, ok := l.reasonID[key]; ok {
			return id
		}
	}
	if l.reasonID == nil {
		l.reasonID = map[string]uint16{}
	}
	l.reasons = append(l.reasons, message)
	id := uint16(len(l.reasons))
	l.reasonID[key] = id
	return id
}

// each calls fn with the connection, state and reason ("" when none) of
// every logged (conn, seq).
func (l *ledger) each(fn func(conn int, st uint8, reason string)) {
	why := func(id uint16) string {
		if id == 0 {
			return ""
		}
		return l.reasons[id-1]
	}
	for c, d := range l.dense {
		var r []uint16
		if c < len(l.reason) {
			r = l.reason[c]
		}
		for s, st := range d {
			if st == 0 {
				continue
			}
			var id uint16
			if s < len(r) {
				id = r[s]
			}
			fn(c, st, why(id))
		}
	}
	for k, e := range l.sparse {
		fn(k.conn, e.st, why(e.reason))
	}
}

// withoutNumbers returns msg with each run of digits replaced by '#'.
func withoutNumbers(msg string) string {
	b := make([]byte, 0, len(msg))
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c < '0' || c > '9' {
			b = append(b, c)
			continue
		}
		b = append(b, '#')
		for i+1 < len(msg) && msg[i+1] >= '0' && msg[i+1] <= '9' {
			i++
		}
	}
	return string(b)
}
