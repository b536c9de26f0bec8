package analysis

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// The node events of events.csv, read as perturbations (a down period
// on one node) and as instants (a process that exited on its own, a
// start, a wipe).

// Perturbation is one perturbation of one node: the period from its
// perturb-begin to its perturb-end event.
type Perturbation struct {
	Node   string
	Action string // the first word of the begin event's detail: kill, restart, pause, disconnect, wipe
	Detail string // the begin event's detail, e.g. "kill 1/2, down 5s"
	Begin  int64  // Unix ns
	End    int64  // Unix ns; 0 when the run ended before the perturbation did
}

// Label returns "kill 1/2 validator03" style text for tables and plots.
func (p Perturbation) Label() string {
	what, _, _ := strings.Cut(p.Detail, ",")
	if what == "" {
		what = p.Action
	}
	if p.Node == "" { // the testnet's: a partition
		return what
	}
	return what + " " + p.Node
}

// Perturbations pairs each perturb-begin event with the next perturb-end
// event of the same node, in order of begin time.
func Perturbations(ev []results.Event) []Perturbation {
	ev = sortedEvents(ev)
	var out []Perturbation
	open := map[string]int{} // node → index in out of its open perturbation
	for _, e := range ev {
		switch e.Kind {
		case results.EventPerturbBegin:
			action, _, _ := strings.Cut(strings.TrimSpace(e.Detail), " ")
			action = strings.TrimSuffix(action, ",")
			open[e.Node] = len(out)
			out = append(out, Perturbation{Node: e.Node, Action: action, Detail: e.Detail, Begin: e.At})
		case results.EventPerturbEnd:
			if i, ok := open[e.Node]; ok {
				out[i].End = e.At
				delete(open, e.Node)
			}
		}
	}
	return out
}

// sortedEvents returns the events by time, stable (events.csv is written
// as things happen, so it is in order already but for clock ties).
func sortedEvents(ev []results.Event) []results.Event {
	if slices.IsSortedFunc(ev, func(a, b results.Event) int { return cmp.Compare(a.At, b.At) }) {
		return ev
	}
	ev = slices.Clone(ev)
	slices.SortStableFunc(ev, func(a, b results.Event) int { return cmp.Compare(a.At, b.At) })
	return ev
}

// within returns the perturbation of node during which t falls (begin ≤
// t ≤ end, an open one lasting to the end of the run), or nil.
func within(ps []Perturbation, node string, t int64) *Perturbation {
	for i := range ps {
		p := &ps[i]
		if p.Node == node && t >= p.Begin && (p.End == 0 || t <= p.End) {
			return p
		}
	}
	return nil
}

// Instant is a node event drawn as a vertical line: a process that
// exited outside every perturbation of its node (it died on its own), a
// process start during the load, a data wipe.
type Instant struct {
	At     int64 // Unix ns
	Node   string
	Kind   string // results.EventExit, EventStart or EventWipe
	Detail string
}

// Label returns "validator03 exited (signal 9)" style text.
func (in Instant) Label() string {
	switch in.Kind {
	case results.EventExit:
		if in.Detail == "" {
			return in.Node + " exited"
		}
		return in.Node + " exited (" + in.Detail + ")"
	case results.EventStart:
		return in.Node + " started"
	case results.EventWipe:
		return in.Node + " wiped"
	}
	return in.Node + " " + in.Kind
}

// Instants returns the instants of ev: unplanned exits (see
// UnplannedExits), starts at or after from (Unix ns; the testnet's own
// start before the load is not an event of the run), and wipes.
func Instants(ev []results.Event, from, loadEnd int64) []Instant {
	ev = sortedEvents(ev)
	ps := Perturbations(ev)
	last := map[string]int{} // node → index of its last event
	for i, e := range ev {
		last[e.Node] = i
	}
	stopping := map[string]bool{} // cometlab sent the node kill or term since its last start
	var out []Instant
	for i, e := range ev {
		switch e.Kind {
		case results.EventKill, results.EventTerm:
			stopping[e.Node] = true
		case results.EventStart:
			stopping[e.Node] = false
		}
		switch {
		case e.Kind == results.EventExit && !stopping[e.Node] && within(ps, e.Node, e.At) == nil && !endOfRun(e, i == last[e.Node], loadEnd),
			e.Kind == results.EventStart && e.At >= from,
			e.Kind == results.EventWipe:
			out = append(out, Instant{At: e.At, Node: e.Node, Kind: e.Kind, Detail: e.Detail})
		}
	}
	return out
}

// endOfRun reports whether the exit e is cometlab's stop of the testnet at
// the end of the run, which events.csv does not announce with a term
// event: the node's last event, after the load end (Unix ns; 0 unknown),
// and the exit of a graceful SIGTERM (exit code 0, or signal 15).
func endOfRun(e results.Event, last bool, loadEnd int64) bool {
	return last && loadEnd != 0 && e.At >= loadEnd && (e.Detail == "exit code 0" || e.Detail == "signal 15")
}

// UnplannedExits returns the exits of node processes that died on their
// own: outside every perturbation of their node, not after a kill or term
// event of cometlab since the node's last start, and not cometlab's stop of
// the testnet after the load end (loadEnd, Unix ns; 0 unknown).
func UnplannedExits(ev []results.Event, loadEnd int64) []Instant {
	var out []Instant
	for _, in := range Instants(ev, 0, loadEnd) {
		if in.Kind == results.EventExit {
			out = append(out, in)
		}
	}
	return out
}

// gapCause returns what events.csv knows of why node has no samples from
// from to to (Unix ns): the perturbation it overlaps ("kill 1/2
// validator03"), or the node's unplanned exit in it ("it exited, signal
// 9"); "" when nothing.
func gapCause(ev []results.Event, node string, from, to int64) string {
	for _, p := range Perturbations(ev) {
		if p.Node == node && p.Begin < to && (p.End == 0 || p.End > from) {
			return "it was down: " + p.Label()
		}
	}
	for _, e := range UnplannedExits(ev, 0) {
		if e.Node == node && e.At >= from && e.At <= to {
			if e.Detail == "" {
				return "it exited"
			}
			return "it exited, " + e.Detail
		}
	}
	return ""
}
