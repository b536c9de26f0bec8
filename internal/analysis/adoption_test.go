package analysis

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

var update = flag.Bool("update", false, "rewrite the expected output of the data-driven tests in testdata/")

// TestAdoptionData runs the cases of testdata/adoption/*.txt: an input
// (the commands below), a line "----", then the expected output of
// AnalyzeAdoption (see formatAdoption). Commands, all times in ms:
//
//	nodes A B …            the nodes expected to commit every block
//	window FIRST LAST      the run's height range (default: unbounded)
//	commit H T             block H's BFT commit time (header time of H+1)
//	adopt H NODE=T …       when each node committed height H
//
// go test -update rewrites the expected outputs.
func TestAdoptionData(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "adoption", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, want, ok := strings.Cut(string(b), "----\n")
			if !ok {
				t.Fatalf("no ---- line")
			}
			rows, blocks, nodes, first, last := parseAdoptionCase(t, input)
			got := formatAdoption(AnalyzeAdoption(rows, blocks, nodes, first, last))
			if *update {
				if err := os.WriteFile(file, []byte(input+"----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func parseAdoptionCase(t *testing.T, input string) (rows []results.Adoption, blocks []results.Block, nodes []string, first, last int64) {
	ms := func(s string) int64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("bad time %q", s)
		}
		return int64(math.Round(v * 1e6))
	}
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	sc := bufio.NewScanner(strings.NewReader(input))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
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
			t.Fatalf("unknown command %q", f[0])
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
