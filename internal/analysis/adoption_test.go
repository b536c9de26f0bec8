package analysis

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestAdoptionData runs the cases of testdata/adoption/*.txt (see
// resultstest.RunFiles). A case is a script whose every line, from the
// command line on, is one of the commands below (all times in ms); its
// expected output is that of AnalyzeAdoption (see formatAdoption).
//
//	nodes A B …            the nodes expected to commit every block
//	window FIRST LAST      the run's height range (default: unbounded)
//	commit H T             block H's BFT commit time (header time of H+1)
//	adopt H NODE=T …       when each node committed height H
//
// go test -update rewrites the expected outputs.
func TestAdoptionData(t *testing.T) {
	resultstest.RunFiles(t, filepath.Join("testdata", "adoption", "*.txt"), func(t *testing.T, c resultstest.Case) string {
		rows, blocks, nodes, first, last := parseAdoptionCase(t, c.Pos, append([]string{c.Line}, c.Input...))
		return formatAdoption(AnalyzeAdoption(rows, blocks, nodes, first, last))
	})
}

func parseAdoptionCase(t *testing.T, pos string, script []string) (rows []results.Adoption, blocks []results.Block, nodes []string, first, last int64) {
	ms := func(s string) int64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: bad time %q", pos, s)
		}
		return int64(math.Round(v * 1e6))
	}
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: bad number %q", pos, s)
		}
		return v
	}
	for _, line := range script {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "nodes":
			nodes = f[1:]
		case "window":
			first, last = num(f[1]), num(f[2])
		case "commit":
			blocks = append(blocks, results.Block{Height: num(f[1]), CommitTime: ms(f[2])})
		case "adopt":
			for _, a := range f[2:] {
				n, at, _ := strings.Cut(a, "=")
				rows = append(rows, results.Adoption{Height: num(f[1]), Node: n, At: ms(at)})
			}
		default:
			t.Fatalf("%s: unknown command %q", pos, f[0])
		}
	}
	return rows, blocks, nodes, first, last
}

// formatAdoption writes the statistics as the expected outputs give them.
func formatAdoption(st AdoptionStats) string {
	var b strings.Builder
	msf := func(ns float64) string {
		if math.IsNaN(ns) {
			return "n/a"
		}
		return strconv.FormatFloat(ns/1e6, 'f', 3, 64)
	}
	fmt.Fprintf(&b, "nodes %d, blocks %d\n", st.N(), len(st.Blocks))
	for _, k := range st.Blocks {
		var at []string
		for _, t := range k.At {
			at = append(at, "+"+msf(float64(t-k.At[0])))
		}
		fmt.Fprintf(&b, "height %d: %s\n", k.Height, strings.Join(at, " "))
	}
	for _, f := range AdoptionFractions() {
		ns, short := st.Spreads(f)
		d := Describe(ns)
		bft := Describe(st.SpreadsBFT(f))
		fmt.Fprintf(&b, "%.2f (%d of %d): mean %s p99 %s, not reached %d; from BFT time mean %s\n",
			f, NodesFor(f, st.N()), st.N(), msf(d.Mean), msf(d.Percentile(99)), short, msf(bft.Mean))
	}
	for _, n := range st.Nodes {
		fmt.Fprintf(&b, "node %s: heights %d, missing %v, last %d, lag mean %s p99 %s max %s\n",
			n.Node, n.Heights, n.Missing, n.Last, msf(n.Lag.Mean), msf(n.Lag.Percentile(99)), msf(n.Lag.Max))
	}
	return b.String()
}

func TestNodesFor(t *testing.T) {
	tests := []struct {
		f    float64
		n    int
		want int
	}{
		{0.5, 4, 2}, {0.8, 4, 4}, {1, 4, 4}, {0.8, 5, 4}, {0.9, 10, 9}, {0.92, 100, 92}, {0.5, 1, 1}, {0, 4, 1}, {0.5, 3, 2},
	}
	for _, tt := range tests {
		if got := NodesFor(tt.f, tt.n); got != tt.want {
			t.Errorf("NodesFor(%v, %d) = %d, want %d", tt.f, tt.n, got, tt.want)
		}
	}
}
