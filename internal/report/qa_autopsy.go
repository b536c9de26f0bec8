package report

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// qaRunFindings is what one run of a test found, from its summary.json.
type qaRunFindings struct {
	dir             string // relative to the QA directory
	read            bool   // its summary.json was read
	slow, issues    string // SlowLine, IssuesLine
	safety          string // SafetyLine
	unsafe          bool
	host            string  // DisturbanceLine
	busyPct, load1  float64 // host_busy_mean_pct, load1_max (NaN: not measured)
	heights, slowN  float64
	causes          map[string]float64 // slow heights per cause
	anomalies       int
	worstAnomaly    string
	scenarioAnswers []string
}

func readRunFindings(qaDir, rel string) qaRunFindings {
	f := qaRunFindings{dir: rel, causes: map[string]float64{}}
	var s analysis.Summary
	if results.ReadJSON(filepath.Join(qaDir, rel, results.SummaryFile), &s) != nil {
		return f
	}
	f.read = true
	f.slow, f.issues, f.host = SlowLine(s), IssuesLine(s), DisturbanceLine(s)
	f.safety, f.unsafe = SafetyLine(s)
	f.heights, f.slowN = s.Metrics["blocks"], s.Metrics["slow_heights"]
	f.busyPct, f.load1 = math.NaN(), math.NaN()
	if v, ok := s.Metrics["host_busy_mean_pct"]; ok {
		f.busyPct = v
	}
	if v, ok := s.Metrics["load1_max"]; ok {
		f.load1 = v
	}
	for _, c := range analysis.Causes() {
		if k := s.Metrics["slow_heights_"+c]; k > 0 {
			f.causes[c] = k
		}
	}
	f.anomalies = len(s.Anomalies)
	if len(s.Anomalies) > 0 {
		f.worstAnomaly = strings.TrimSuffix(s.Anomalies[0], ".")
	}
	f.scenarioAnswers = ScenarioLines(s)
	return f
}

// qaAutopsy writes a test's "Issues discovered and autopsy": over its
// runs, the slow heights the block autopsy found by cause, whether every
// run was safe, the issues its runs' logs and events showed (panics,
// consensus failures, crashes) and the anomalies, the runs whose host was
// busy (and those set aside and measured again, disturbed); then each
// run's scenario answer and slow heights in a line. Nothing for a test
// without runs.
func (m mdWriter) qaAutopsy(dir string, runs, disturbed []string) {
	if len(runs) == 0 && len(disturbed) == 0 {
		return
	}
	m.f("### Issues discovered and autopsy\n\n")
	var fs []qaRunFindings
	for _, r := range runs {
		fs = append(fs, readRunFindings(dir, r))
	}
	var read, unsafe, busy []qaRunFindings
	var issues []string
	causes := map[string]float64{}
	var heights, slow float64
	anomalies := 0
	for _, f := range fs {
		if !f.read {
			continue
		}
		read = append(read, f)
		heights, slow, anomalies = heights+f.heights, slow+f.slowN, anomalies+f.anomalies
		for c, k := range f.causes {
			causes[c] += k
		}
		if f.unsafe {
			unsafe = append(unsafe, f)
		}
		if f.issues != "" {
			issues = append(issues, fmt.Sprintf("%s: %s", runLink(f.dir), f.issues))
		}
		if f.host != "" {
			busy = append(busy, f)
		}
	}
	if len(read) < len(fs) {
		m.f("%d of the %d runs have no summary.json (not analysed): they are left out below.\n\n", len(fs)-len(read), len(fs))
	}
	if len(read) == 0 {
		return
	}
	m.f("- **Slow heights** (the block autopsy; \"Why these blocks were slow\" in each run's report): %s.\n",
		causesText(heights, slow, causes, len(read)))
	checked := 0
	for _, f := range read {
		if f.safety != "" {
			checked++
		}
	}
	switch {
	case checked == 0:
		m.f("- **Safety**: not checked (the runs' summaries were made before the safety check).\n")
	case len(unsafe) == 0 && checked == len(read):
		m.f("- **Safety**: every run's checks passed (no transaction committed twice, no accepted one lost unexplained, the nodes agreed where their hashes were read).\n")
	case len(unsafe) == 0:
		m.f("- **Safety**: the checks of %d of the %d runs passed; the other runs' summaries were made before the check.\n", checked, len(read))
	default:
		var parts []string
		for _, f := range unsafe {
			parts = append(parts, runLink(f.dir)+": "+f.safety)
		}
		m.f("- **SAFETY VIOLATION** in %d of %d runs: %s\n", len(unsafe), len(read), strings.Join(parts, "; "))
	}
	if len(issues) == 0 {
		m.f("- **Issues discovered**: none found (no panic or consensus failure in the runs' logs, no node crashed).\n")
	} else {
		m.f("- **Issues discovered**: %s\n", strings.Join(issues, " "))
	}
	m.f("- **Anomalies**: %s.\n", anomaliesText(read, anomalies))
	m.f("- **Host**: %s.\n\n", hostText(read, busy, disturbed))
	var lines []string
	for _, f := range read {
		line := "- " + runLink(f.dir) + ": "
		for _, a := range f.scenarioAnswers {
			line += a + " "
		}
		if f.slow == "" {
			f.slow = "no block autopsy in its summary."
		}
		lines = append(lines, line+upperFirst(f.slow))
	}
	m.f("%s\n\n", strings.Join(lines, "\n"))
}

// runLink is a run's name linked to its report.
func runLink(rel string) string {
	return fmt.Sprintf("[%s](%s/%s)", filepath.Base(rel), rel, results.ReportFile)
}

// causesText is the slow heights over a test's runs, by cause, most
// first.
func causesText(heights, slow float64, causes map[string]float64, runs int) string {
	if slow == 0 {
		return fmt.Sprintf("none of %s heights over %d %s", groupDigits(heights), runs, plural(runs, "run", "runs"))
	}
	type count struct {
		cause string
		k     float64
	}
	var cs []count
	for c, k := range causes {
		cs = append(cs, count{c, k})
	}
	slices.SortFunc(cs, func(a, b count) int {
		if a.k != b.k {
			return cmp.Compare(b.k, a.k)
		}
		return cmp.Compare(a.cause, b.cause)
	})
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = groupDigits(c.k) + " " + c.cause
	}
	return fmt.Sprintf("%s of %s heights over %d %s: %s", groupDigits(slow), groupDigits(heights), runs, plural(runs, "run", "runs"),
		strings.Join(parts, ", "))
}

func anomaliesText(read []qaRunFindings, n int) string {
	if n == 0 {
		return "none"
	}
	var worst []string
	for _, f := range read {
		if f.worstAnomaly != "" {
			worst = append(worst, runLink(f.dir)+": "+f.worstAnomaly)
		}
	}
	return fmt.Sprintf("%d over the runs; the worst of each: %s", n, strings.Join(worst, "; "))
}

func hostText(read, busy []qaRunFindings, disturbed []string) string {
	var parts []string
	if h := headroomText(read); h != "" {
		parts = append(parts, h)
	}
	if len(busy) == 0 {
		parts = append(parts, "no other work on it in any run kept")
	}
	for _, f := range busy {
		parts = append(parts, runLink(f.dir)+" kept although "+strings.TrimSuffix(f.host, "."))
	}
	if len(disturbed) > 0 {
		ds := make([]string, len(disturbed))
		for i, d := range disturbed {
			ds[i] = "`" + d + "`"
		}
		parts = append(parts, fmt.Sprintf("%d %s measured again because the host was busy, kept as evidence: %s", len(disturbed),
			plural(len(disturbed), "run was", "runs were"), strings.Join(ds, ", ")))
	}
	return strings.Join(parts, "; ")
}

// headroomText is the host's headroom over runs: how busy the host's cores
// were during each run's load (host_busy_mean_pct: the testnet itself,
// cometlab and any other work), its worst, and the highest load1; and,
// above analysis.BusyLimitPct, that the testnet measured the host (its
// nodes queued for CPU) rather than CometBFT. "" when no run measured it.
func headroomText(read []qaRunFindings) string {
	var busy, load1 []float64
	for _, f := range read {
		if !math.IsNaN(f.busyPct) {
			busy = append(busy, f.busyPct)
		}
		if !math.IsNaN(f.load1) {
			load1 = append(load1, f.load1)
		}
	}
	if len(busy) == 0 {
		return ""
	}
	hi := slices.Max(busy)
	s := fmt.Sprintf("its cores %.0f–%.0f %% busy during the loads (the testnet itself included; %.0f %% headroom left in the busiest run)",
		slices.Min(busy), hi, max(0, 100-hi))
	if len(load1) > 0 {
		s += fmt.Sprintf(", load1 up to %.1f", slices.Max(load1))
	}
	if hi > analysis.BusyLimitPct {
		s = "**SATURATED**: " + s + fmt.Sprintf(": above %d %% the nodes queue for CPU, so the figures measure this host as much as CometBFT (a larger time scale would give the testnet room)", analysis.BusyLimitPct)
	}
	return s
}

// SaturatedRuns counts the runs under qaDir (rel) whose host was busier
// than analysis.BusyLimitPct during the load: a test with any says so on
// its first line.
func saturatedRuns(qaDir string, rels []string) int {
	n := 0
	for _, rel := range rels {
		if f := readRunFindings(qaDir, rel); f.read && f.busyPct > analysis.BusyLimitPct {
			n++
		}
	}
	return n
}
