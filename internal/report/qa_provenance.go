package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// QAProvenance is what one side of a QA ran, read from its runs' run.json
// and summary.json (the QA's own record only plans it): the programs its
// nodes ran and the code they were built from, the loads that ran, the
// time scales, when, and how much was analysed.
type QAProvenance struct {
	Label    string
	Binaries []results.Binary // distinct by path
	Sources  []results.Source // distinct by key
	Loads    []string         // distinct, as the runs recorded them (the model's)
	Scales   []float64        // distinct time scales (1: real time)
	First    time.Time        // the first run's start
	Last     time.Time        // the last run's end
	Runs     int
	Heights  int // heights analysed: the runs' blocks
}

// QAReleaseNotes are the headings of the release notes between the
// baseline's release and the candidate's, from the candidate's
// CHANGELOG.md: each release after From up to To, with its sections and
// how many entries each has.
type QAReleaseNotes struct {
	From, To string
	Source   string // where they were read
	Releases []QANotesRelease
}

// QANotesRelease is one release of the notes: its version and its
// sections ("BUG FIXES (20)").
type QANotesRelease struct {
	Version  string
	Sections []string
}

// AddRun adds one run of the side to p.
func (p *QAProvenance) AddRun(run results.Run, heights int) {
	p.Runs++
	p.Heights += heights
	for _, b := range run.Binaries {
		if !slices.ContainsFunc(p.Binaries, func(o results.Binary) bool { return o.Path == b.Path && o.Sum == b.Sum }) {
			b.Nodes = nil // of the run's nodes; the table names the program
			p.Binaries = append(p.Binaries, b)
		}
	}
	for _, s := range run.Sources {
		if !slices.ContainsFunc(p.Sources, func(o results.Source) bool { return o.Key == s.Key }) {
			s.Nodes = nil
			p.Sources = append(p.Sources, s)
		}
	}
	l := run.Load
	load := fmt.Sprintf("%d × %s tx/s of %d B for %s", l.Connections, fmtFloat(l.Rate), l.Size, fmtS(l.DurationS))
	if l.ShapeDetail != "" {
		load += " (" + l.ShapeDetail + ")"
	}
	if !slices.Contains(p.Loads, load) {
		p.Loads = append(p.Loads, load)
	}
	if k := run.Scale(); !slices.Contains(p.Scales, k) {
		p.Scales = append(p.Scales, k)
	}
	if !run.Started.IsZero() && (p.First.IsZero() || run.Started.Before(p.First)) {
		p.First = run.Started
	}
	if run.Ended.After(p.Last) {
		p.Last = run.Ended
	}
}

// qaProvenance writes the provenance table: a row per fact, a column per
// side, then the release notes' headings between the releases.
func (m mdWriter) qaProvenance(sides []QAProvenance, notes *QAReleaseNotes) {
	if len(sides) == 0 {
		return
	}
	m.f("### Provenance\n\n")
	m.f("What each side ran, read from its runs' own records (run.json: the build information stamped in each node " +
		"program, the load as the runs sent it, in the model's time), not from the plan or the manifests.\n\n")
	header, align := []string{""}, "l"
	for _, s := range sides {
		header = append(header, s.Label)
		align += "l"
	}
	row := func(name string, f func(p QAProvenance) string) []string {
		r := []string{name}
		for _, s := range sides {
			r = append(r, f(s))
		}
		return r
	}
	rows := [][]string{
		row("node programs", func(p QAProvenance) string { return binariesText(p.Binaries, binaryName) }),
		row("module and its go.sum hash", func(p QAProvenance) string { return binariesText(p.Binaries, binaryModule) }),
		row("Go, build tags, cgo", func(p QAProvenance) string { return binariesText(p.Binaries, binaryBuild) }),
		row("source (commit)", func(p QAProvenance) string { return sourcesText(p.Sources) }),
		row("load that ran", func(p QAProvenance) string { return orDash(strings.Join(p.Loads, "; ")) }),
		row("time scale k", func(p QAProvenance) string { return orDash(floatsText(p.Scales)) }),
		row("runs analysed", func(p QAProvenance) string { return fmt.Sprint(p.Runs) }),
		row("heights analysed", func(p QAProvenance) string { return fmt.Sprint(p.Heights) }),
		row("first run started", func(p QAProvenance) string { return timeText(p.First) }),
		row("last run ended", func(p QAProvenance) string { return timeText(p.Last) }),
	}
	m.table(header, align, rows)
	if notes == nil || len(notes.Releases) == 0 {
		return
	}
	m.f("Release notes between %s and %s (the headings of %s, each with its number of entries):\n\n", notes.From, notes.To, notes.Source)
	for _, r := range notes.Releases {
		m.f("- **%s**: %s\n", r.Version, orDash(strings.Join(r.Sections, ", ")))
	}
	m.f("\n")
}

func binaryName(b results.Binary) string {
	if i := strings.LastIndex(b.Path, "/"); i >= 0 {
		return b.Path[i+1:]
	}
	return b.Path
}

func binaryModule(b results.Binary) string {
	if b.Module == "" {
		return "no build information"
	}
	s := b.Module + "@" + b.Version
	if b.Sum != "" {
		s += " " + b.Sum
	}
	return s
}

func binaryBuild(b results.Binary) string {
	if b.GoVersion == "" {
		return "—"
	}
	tags := "no tags"
	if b.Tags != "" {
		tags = "tags " + b.Tags
	}
	cgo := "cgo off"
	if b.CGO {
		cgo = "cgo on"
	}
	return b.GoVersion + ", " + tags + ", " + cgo
}

// binariesText is each binary's f, distinct, joined.
func binariesText(bs []results.Binary, f func(results.Binary) string) string {
	var out []string
	for _, b := range bs {
		if s := f(b); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return orDash(strings.Join(out, "; "))
}

func sourcesText(ss []results.Source) string {
	if len(ss) == 0 {
		return "the release's module (no source tree or patch)"
	}
	var out []string
	for _, s := range ss {
		switch {
		case s.Path != "":
			d := cmpOr(s.Describe, s.Commit)
			if s.Dirty {
				d += fmt.Sprintf(", uncommitted changes %.12s", s.DiffHash)
			}
			out = append(out, fmt.Sprintf("tree %s at %s (line %s)", s.Path, d, s.Line))
		default:
			var ps []string
			for _, p := range s.Patches {
				ps = append(ps, fmt.Sprintf("%s %.12s", p.Path, p.SHA256))
			}
			out = append(out, fmt.Sprintf("%s patched with %s", s.Release, strings.Join(ps, ", ")))
		}
	}
	return strings.Join(out, "; ")
}

func floatsText(fs []float64) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmtFloat(f))
	}
	return strings.Join(out, ", ")
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// orDash is s, or "—" when it is empty.
func orDash(s string) string { return cmpOr(s, "—") }

// cmpOr is a, or b when a is empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
