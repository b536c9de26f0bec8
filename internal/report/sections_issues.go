package report

import (
	"fmt"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// The report's opening section, as the published QA reports open: the
// issues the run discovered in its node logs and node events.

// maxIssueRows is how many error-line modules the section lists; the rest
// are in findings.json.
const maxIssueRows = 12

// IssuesLine says, when the run discovered a panic, a consensus failure
// or a crash (Summary.Issues), what they were in one line; "" otherwise.
// The report and the terminal summary open with it.
func IssuesLine(s analysis.Summary) string {
	if len(s.Issues) == 0 {
		return ""
	}
	return strings.Join(s.Issues, " ")
}

// issues writes "Issues discovered": the alarming issues with a panic's
// trace, then the error lines by module. Nothing for a run without
// logs/ and without a crash.
func (m mdWriter) issues(in *analysis.Input) {
	f := analysis.FindingsOf(*in)
	if f.Logs == nil && len(f.Issues) == 0 {
		return
	}
	m.f("## Issues discovered\n\n")
	if f.Logs == nil {
		m.f("The node logs are not in the run directory (`logs/`): only the node events were read.\n\n")
	} else {
		var lines int64
		for _, lf := range f.Logs {
			lines += lf.Lines
		}
		m.f("%d %s scanned (%s lines, `logs/`) for Go panics, CONSENSUS FAILURE and error lines; node events for crashes. All of it is in `findings.json`.\n\n",
			len(f.Logs), plural(len(f.Logs), "log", "logs"), groupDigits(float64(lines)))
	}
	alarms := f.Alarms()
	if len(alarms) == 0 {
		m.f("No panic, no consensus failure, no node crashed.\n\n")
	}
	for _, is := range alarms {
		m.f("- **%s**\n", is.Sentence())
		if len(is.Trace) > 0 {
			m.f("\n  ```\n")
			for _, t := range is.Trace {
				m.f("  %s\n", t)
			}
			m.f("  ```\n")
		}
	}
	if len(alarms) > 0 {
		m.f("\n")
	}
	m.errorLines(f)
}

// errorLines writes the error lines by module: lines, nodes, first line.
func (m mdWriter) errorLines(f analysis.Findings) {
	if f.Logs == nil {
		return
	}
	var rows [][]string
	var total int64
	more := 0
	for _, is := range f.Issues {
		if is.Kind != analysis.IssueError {
			continue
		}
		total += is.Count
		if len(rows) == maxIssueRows {
			more++
			continue
		}
		mod := is.Module
		if mod == "" {
			mod = "(none)"
		}
		rows = append(rows, []string{mod, fmt.Sprint(is.Count), analysis.JoinFew(is.NodeNames(), 4, "%d more"),
			fmt.Sprintf("`%s` (%s:%d)", strings.ReplaceAll(is.First.Text, "`", "'"), is.First.File, is.First.Line)})
	}
	if total == 0 {
		m.f("No error line in the logs.\n\n")
		return
	}
	m.f("Error lines: %s, by module (counted, not alarming: CometBFT logs some on a healthy run, e.g. when a peer or an RPC client hangs up):\n\n", groupDigits(float64(total)))
	m.table([]string{"module", "lines", "nodes", "first line"}, "lrll", rows)
	if more > 0 {
		m.f("And %d more modules (findings.json).\n\n", more)
	}
}
