package sentinel

import "errors"

// Why the fair queue refuses an item.
var (
	ErrClientQueueFull  = errors.New("client queue full")
	ErrGlobalBufferFull = errors.New("global buffer full")
)

// FairQueue holds one bounded FIFO per client and serves them by deficit
// round robin (Shreedhar & Varghese, 1995). Each backlogged client, in turn,
// gets Quantum×weight bytes of credit (its deficit) and is served while its
// head item fits its deficit; a client whose queue empties loses its
// deficit. Over any interval in which clients i and j stay backlogged, the
// bytes served satisfy
//
//	|served_i/w_i − served_j/w_j| ≤ Quantum + MaxItem·(1/w_i + 1/w_j)
//
// where MaxItem is the largest item's cost. FairQueue is a pure data
// structure: no clock, no I/O, not safe for concurrent use.
type FairQueue[T any] struct {
	quantum   int
	perClient int // items per client queue
	global    int // items in all queues
	weight    func(key string) int

	clients map[string]*flow[T]
	active  []*flow[T] // backlogged clients, in round-robin order
	len     int
}

type flow[T any] struct {
	key     string
	items   []queued[T]
	head    int
	deficit int
	active  bool
}

type queued[T any] struct {
	v    T
	cost int
}

// NewFairQueue returns a queue with a per-client bound and a global bound
// (in items), a quantum in cost units (bytes) and a weight per client key
// (nil: every client weighs 1; weights below 1 count as 1).
func NewFairQueue[T any](perClient, global, quantum int, weight func(key string) int) *FairQueue[T] {
	if weight == nil {
		weight = func(string) int { return 1 }
	}
	return &FairQueue[T]{quantum: max(1, quantum), perClient: perClient, global: global,
		weight: weight, clients: map[string]*flow[T]{}}
}

// Len returns the number of items queued.
func (q *FairQueue[T]) Len() int { return q.len }

// ClientLen returns the number of items queued for key.
func (q *FairQueue[T]) ClientLen(key string) int {
	if f := q.clients[key]; f != nil {
		return len(f.items) - f.head
	}
	return 0
}

// Check returns the error Push would return for key now.
func (q *FairQueue[T]) Check(key string) error {
	if q.ClientLen(key) >= q.perClient {
		return ErrClientQueueFull
	}
	if q.len >= q.global {
		return ErrGlobalBufferFull
	}
	return nil
}

// Push appends v, of the given cost, to key's queue, or refuses it with
// ErrClientQueueFull or ErrGlobalBufferFull. The client's bound is checked
// first, so a client that floods learns that its own queue is full.
func (q *FairQueue[T]) Push(key string, v T, cost int) error {
	f := q.clients[key]
	if f == nil {
		f = &flow[T]{key: key}
		q.clients[key] = f
	}
	if len(f.items)-f.head >= q.perClient {
		return ErrClientQueueFull
	}
	if q.len >= q.global {
		return ErrGlobalBufferFull
	}
	if f.head > 0 && f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	f.items = append(f.items, queued[T]{v, max(1, cost)})
	q.len++
	if !f.active {
		f.active = true
		q.active = append(q.active, f)
	}
	return nil
}

// Pop returns the next item by deficit round robin and its client's key;
// ok is false when the queue is empty.
func (q *FairQueue[T]) Pop() (v T, key string, ok bool) {
	for len(q.active) > 0 {
		f := q.active[0]
		it := f.items[f.head]
		if f.deficit < it.cost {
			// Its turn ends: credit it for the next round, move it back.
			f.deficit += q.quantum * max(1, q.weight(f.key))
			q.active = append(q.active[1:], f)
			continue
		}
		f.deficit -= it.cost
		var zero queued[T]
		f.items[f.head] = zero
		f.head++
		q.len--
		if f.head == len(f.items) {
			f.items, f.head, f.deficit, f.active = f.items[:0], 0, 0, false
			q.active = q.active[1:]
			if cap(f.items) > 4*q.perClient/3+16 {
				f.items = nil
			}
			delete(q.clients, f.key)
		}
		return it.v, f.key, true
	}
	return v, "", false
}
