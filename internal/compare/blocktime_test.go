package compare

import (
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestBlockTimeWarning: compare (and ab, which compares through Sides)
// warns when the sides stamp blocks differently, BFT time against PBTS,
// and only then.
func TestBlockTimeWarning(t *testing.T) {
	run := func(dir, pbts string, last int64) Run {
		r := Run{Dir: dir, Run: results.Run{LastHeight: last}, Metrics: map[string]float64{"block_latency_p50_ms": 900}, Settings: map[string]string{}}
		if pbts != "" {
			r.Settings[pbtsSetting] = pbts
		}
		return r
	}
	side := func(label string, runs ...Run) Side { return Side{Label: label, Runs: runs} }
	for _, c := range []struct {
		name       string
		base, cand Side
		want       string // a substring of the warning; "" for none
	}{
		{"both BFT time (v0.40, no key)", side("a", run("a", "", 50)), side("b", run("b", "", 50)), ""},
		{"both BFT time (v1.0, 0)", side("a", run("a", "0", 50)), side("b", run("b", "", 50)), ""},
		{"both PBTS", side("a", run("a", "1", 50)), side("b", run("b", "1", 50)), ""},
		{"BFT against PBTS", side("a", run("a", "0", 50)), side("b", run("b", "1", 50)),
			"the runs stamp their blocks differently (BFT time: a; PBTS from height 1: b)"},
		{"PBTS after the run's last height is BFT time", side("a", run("a", "0", 50)), side("b", run("b", "100", 50)), ""},
		{"within a side", side("a", run("a1", "0", 50), run("a2", "2", 50)), side("b", run("b", "0", 50)),
			"(BFT time: a (a1), b; PBTS from height 2: a (a2))"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Sides(c.base, []Side{c.cand}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, w := range res.Warnings {
				if strings.Contains(w, "stamp their blocks") {
					got = w
				}
			}
			switch {
			case c.want == "" && got != "":
				t.Errorf("warning %q, want none", got)
			case c.want != "" && !strings.Contains(got, c.want):
				t.Errorf("warning %q, want one containing %q", got, c.want)
			}
		})
	}
}
