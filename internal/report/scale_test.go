package report

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// ManyNodesSpec is a synthetic run of n validators as the QA team's
// 200-node testnets have them: at most 50 peers each (CometBFT's default
// limits, 10 outbound + 40 inbound), the nodes' speeds spread at random,
// and three clearly slower nodes (slowNodes) that the report must name as
// the worst; 4 connections × 100 tx/s for 30 s, scraped every 2 s.
func ManyNodesSpec(n int) resultstest.Spec {
	return resultstest.Spec{
		Nodes: n, Connections: 4, Rate: 100, Duration: 30 * time.Second, Size: 1024, Scrape: 2 * time.Second,
		MaxPeers: 50, Slow: slowNodes(n), MultiRoundEvery: 29, RejectEvery: 997, MissingEvery: 1999,
	}
}

// slowNodes returns the names of ManyNodesSpec's three slow nodes, the
// slowest first.
func slowNodes(n int) []string {
	var out []string
	for _, i := range []int{n/10 + 7, n/2 + 1, n*4/5 + 3} {
		out = append(out, fmt.Sprintf("validator%02d", i%n))
	}
	return out
}

// TestManyNodes renders the report of a synthetic 200-node run (part 4 of
// issue 27): every plot is drawn at the default size and inlined in the
// HTML; the per-node tables are summarised with the slow nodes named worst
// (golden), the full tables are in the appendix and node_figures.csv; the
// per-node plots' captions say they show the spread. Render time and
// memory are measured by bench/report.sh nodes200, not here.
func TestManyNodes(t *testing.T) {
	const n = 200
	dir := t.TempDir()
	if _, err := resultstest.WriteRun(dir, ManyNodesSpec(n)); err != nil {
		t.Fatal(err)
	}
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{}); err != nil {
		t.Fatal(err)
	}
	checkPlots(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	resultstest.Golden(t, filepath.Join("testdata", "many_nodes.md.golden"), []byte(summaryTables(md)))
	slow := strings.Join(slowNodes(n), " [^,]+, ")
	for _, row := range []string{"CPU mean", "RSS max", "Data dir at end", "Block processing time", "Lag behind first node mean"} {
		re := regexp.MustCompile(`(?m)^\| ` + row + ` \| 200 \|.*\| ` + slow + ` [^|]+ \|$`)
		if !re.MatchString(md) {
			t.Errorf("the summary row %q does not name %v as the worst nodes", row, slowNodes(n))
		}
	}
	if c := strings.Count(md, spreadNote); c != 18 {
		t.Errorf("%d captions and definitions tell of the spread, want 9 of each", c)
	}
	appendix := md[strings.Index(md, "## Appendix: Per-node figures"):]
	for _, name := range []string{"validator00", "validator199", slowNodes(n)[0]} {
		if c := strings.Count(appendix[:strings.Index(appendix, "## Appendix: Experiment")], "| "+name+" |"); c != 5 {
			t.Errorf("%s has %d rows in the appendix's tables, want 5", name, c)
		}
	}
	checkNodeFigures(t, dir, s, n)
	// Keep the report to look at: go test -v -run TestManyNodes ./internal/report/
	keepReport(t, dir, "cometlab-200-nodes-report")
}

// summaryTables returns the summary tables of report.md, each after the
// heading of its section.
func summaryTables(md string) string {
	var out strings.Builder
	section := ""
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			section = l
		}
		if strings.HasPrefix(l, "| figure | nodes | min |") {
			out.WriteString(section + "\n\n")
			for _, r := range lines[i:] {
				if !strings.HasPrefix(r, "|") {
					break
				}
				out.WriteString(r + "\n")
			}
			out.WriteString("\n")
		}
	}
	return out.String()
}

// checkNodeFigures checks node_figures.csv against the summary: one row
// per node with every per-node figure.
func checkNodeFigures(t *testing.T, dir string, s analysis.Summary, n int) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, results.NodeFiguresFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+1 || rows[0][0] != "node" {
		t.Fatalf("%s has %d rows, header %q; want %d and node first", results.NodeFiguresFile, len(rows), rows[0][:1], n+1)
	}
	for _, r := range rows[1:] {
		for j, id := range rows[0][1:] {
			want, ok := s.Nodes[r[0]][id]
			if got, err := strconv.ParseFloat(r[j+1], 64); ok && (err != nil || got != want) || !ok && r[j+1] != "" {
				t.Fatalf("%s %s = %q, summary.json %v", r[0], id, r[j+1], want)
			}
		}
	}
}
