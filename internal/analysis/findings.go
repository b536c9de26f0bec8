package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// The issues a run discovered (findings.json): what the node logs say
// went wrong, and the nodes that crashed.

// Issue is one kind of trouble over the run's nodes: every panic, every
// consensus failure, every crash, or the error lines of one module.
type Issue struct {
	Kind   string           `json:"kind"`             // IssuePanic, IssueConsensusFailure, IssueCrash or IssueError
	Module string           `json:"module,omitempty"` // IssueError: the lines' module ("" when they name none)
	Count  int64            `json:"count"`            // lines (crashes: exits)
	Nodes  map[string]int64 `json:"nodes"`            // the count of each node that had it
	First  Quote            `json:"first"`            // the first line, of the first node in name order
	Trace  []string         `json:"trace,omitempty"`  // a panic: the lines after First
}

// Alarming reports whether the issue makes a run's first line: a panic,
// a consensus failure or a crash. Error lines do not: CometBFT logs some
// on a healthy run (a peer that hung up, a killed node's neighbours), so
// they are counted, not shouted.
func (i Issue) Alarming() bool { return i.Kind != IssueError }

// NodeNames returns the issue's nodes, sorted.
func (i Issue) NodeNames() []string { return slices.Sorted(maps.Keys(i.Nodes)) }

// Findings is findings.json: the logs scanned and the issues found.
type Findings struct {
	// Logs holds each log file scanned; nil when the run directory has no
	// logs/ (a run on hosts, a reused testnet's cell).
	Logs []LogFile `json:"logs"`
	// Issues holds the panics, consensus failures and crashes, then the
	// error lines by module, most lines first.
	Issues []Issue `json:"issues"`
}

// Alarms returns the alarming issues (see Issue.Alarming).
func (f Findings) Alarms() []Issue {
	var out []Issue
	for _, i := range f.Issues {
		if i.Alarming() {
			out = append(out, i)
		}
	}
	return out
}

// FindingsOf gathers the issues of in: its scanned logs (in.Logs) and its
// nodes' unplanned exits (in.Events, see UnplannedExits).
func FindingsOf(in Input) Findings {
	f := Findings{Logs: in.Logs, Issues: []Issue{}}
	by := map[string]*Issue{}
	var order []string
	for _, lf := range in.Logs {
		for _, c := range lf.Counts {
			key := c.Kind + "/" + c.Module
			is := by[key]
			if is == nil {
				is = &Issue{Kind: c.Kind, Module: c.Module, Nodes: map[string]int64{}, First: c.First, Trace: c.Trace}
				by[key] = is
				order = append(order, key)
			}
			is.Count += c.Count
			is.Nodes[lf.Node] += c.Count
		}
	}
	for _, key := range order {
		f.Issues = append(f.Issues, *by[key])
	}
	if exits := UnplannedExits(in.Events, unixNs(in.Run.LoadEnd)); len(exits) > 0 {
		is := Issue{Kind: IssueCrash, Count: int64(len(exits)), Nodes: map[string]int64{}}
		for _, e := range exits {
			is.Nodes[e.Node]++
		}
		e := exits[0]
		is.First = Quote{Node: e.Node, File: results.EventsFile, Text: cmp.Or(e.Detail, "status unknown")}
		f.Issues = append(f.Issues, is)
	}
	rank := map[string]int{IssuePanic: 0, IssueConsensusFailure: 1, IssueCrash: 2, IssueError: 3}
	slices.SortStableFunc(f.Issues, func(a, b Issue) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), cmp.Compare(b.Count, a.Count), strings.Compare(a.Module, b.Module))
	})
	return f
}

// Sentence says what the issue is in one sentence naming its nodes and
// quoting its first line.
func (i Issue) Sentence() string {
	nodes := JoinFew(i.NodeNames(), 4, "%d more")
	where := fmt.Sprintf(" (%s:%d)", i.First.File, i.First.Line)
	switch i.Kind {
	case IssuePanic:
		return fmt.Sprintf("%s panicked (%s): `%s`%s.", nodes, count(float64(i.Count), "panic", "panics"), i.First.Text, where)
	case IssueConsensusFailure:
		return fmt.Sprintf("CONSENSUS FAILURE on %s (%s): `%s`%s.", nodes, count(float64(i.Count), "line", "lines"), i.First.Text, where)
	case IssueCrash:
		if i.Count == 1 {
			return fmt.Sprintf("%s crashed: it exited (%s) outside every perturbation (%s).", nodes, i.First.Text, i.First.File)
		}
		return fmt.Sprintf("%s crashed (%d unplanned exits outside every perturbation), the first: %s exited (%s) (%s).", nodes, i.Count, i.First.Node, i.First.Text, i.First.File)
	}
	return fmt.Sprintf("%d error %s of module %s on %s: `%s`%s.", i.Count, plural(i.Count, "line", "lines"), cmp.Or(i.Module, "(none)"), nodes, i.First.Text, where)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// logDictionary holds the figures of the node logs.
func logDictionary() []Metric {
	src := "logs/*.log"
	m := func(id, title, def string) Metric {
		return Metric{ID: id, Title: title, Unit: UnitLines, Better: LowerIsBetter, Group: GroupEvents, Source: src, PerNode: true, Definition: def}
	}
	scan := " Counted in every log of the run directory's logs/ (a node's, and its app's as NODE/app), in CometBFT's plain or JSON log format; absent when the run directory has no logs/. See findings.json."
	return []Metric{
		m("log_panics", "Panics in the logs", "Lines of the node logs that start a Go panic or fatal error (\"panic: …\", \"fatal error: …\"): the process died. Any panic is an issue: compare judges a growth worse without a test."+scan),
		m("log_consensus_failures", "Consensus failures in the logs", "Lines of the node logs reporting CONSENSUS FAILURE (consensus recovered a panic and stopped). Any is an issue: compare judges a growth worse without a test."+scan),
		m("log_error_lines", "Error lines in the logs", "Error-level lines of the node logs (plain \"E[…]\", JSON \"level\":\"error\"), consensus failures left out; findings.json counts them by module. A healthy run logs some (peers that hung up), so they are judged as any figure, not shouted."+scan),
	}
}

// logFigures puts the log figures and the run's issue sentences.
func logFigures(in Input, b *builder) {
	f := FindingsOf(in)
	for _, is := range f.Alarms() {
		b.s.Issues = append(b.s.Issues, is.Sentence())
	}
	if in.Logs == nil {
		return
	}
	ids := map[string]string{IssuePanic: "log_panics", IssueConsensusFailure: "log_consensus_failures", IssueError: "log_error_lines"}
	for _, id := range ids {
		b.s.Metrics[id] = 0
	}
	for _, lf := range in.Logs {
		for _, id := range ids {
			b.putNode(lf.Node, id, 0)
		}
	}
	for _, is := range f.Issues {
		id := ids[is.Kind]
		if id == "" {
			continue
		}
		b.s.Metrics[id] += float64(is.Count)
		for n, c := range is.Nodes {
			b.s.Nodes[n][id] += float64(c)
		}
	}
}
