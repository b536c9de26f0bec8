package experiment_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// The autopsy's known answers on real nodes ride on runs other tests make
// anyway: TestPerturbations's run, every perturbation in turn, must have
// ≥ 90 % of its slow heights blamed on a perturbed node (blamed), the
// kill must show in precommits.csv as that node's absence and no healthy
// node may ever be absent (absentOnly), and the healthy
// run of TestRunEndToEnd must have at most 1 % of its heights slow
// (fewSlow).

// blamed checks that at least 90 % of the run's slow heights (autopsy.csv)
// are blamed on one of nodes, the perturbed ones, by a verdict naming a
// perturbation's effect.
func blamed(t *testing.T, dir string, nodes ...string) {
	t.Helper()
	vs, err := results.ReadAutopsy(dir)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, v := range vs {
		ok := slices.Contains(perturbationEffects, v.Cause) && slices.ContainsFunc(nodes, func(n string) bool { return strings.Contains(v.Node, n) })
		if ok {
			right++
		}
		t.Logf("autopsy: height %d: %s on %s (right: %v): %s", v.Height, v.Cause, v.Node, ok, v.Evidence)
	}
	t.Logf("autopsy: %d of %d slow heights blamed on %v", right, len(vs), nodes)
	if float64(right) < 0.9*float64(len(vs)) {
		t.Errorf("%d of %d slow heights blamed on a perturbation of %v, want ≥ 90 %%", right, len(vs), nodes)
	}
}

// perturbationEffects are the verdicts that name a perturbed node's
// trouble: the perturbation itself, or what it did to the node.
var perturbationEffects = []string{analysis.CausePerturbation, analysis.CauseProposerAbsent, analysis.CauseVotesLate, analysis.CauseNodeLagging}

// absentOnly checks precommits.csv of a run in which node was killed: it
// is absent from some commit, and no validator but node and the others
// perturbed (down, they may miss a commit too) ever is.
func absentOnly(t *testing.T, dir, node string, perturbed ...string) {
	t.Helper()
	ps, err := results.ReadPrecommits(dir)
	if err != nil || len(ps) == 0 {
		t.Fatalf("precommits.csv: %d rows, %v", len(ps), err)
	}
	absent := 0
	for _, p := range ps {
		if p.Flag != "absent" {
			continue
		}
		if p.Node != node && !slices.Contains(perturbed, p.Node) {
			t.Errorf("height %d: %s (%s) absent, only %s were down", p.Height, p.Node, p.Validator, append([]string{node}, perturbed...))
		}
		if p.Node == node {
			absent++
		}
	}
	if absent == 0 {
		t.Errorf("precommits.csv: %s never absent while killed", node)
	}
}

// fewSlow checks a healthy run's autopsy: at most 1 % of its heights slow
// (none, on a run of fewer than 100), and slow_heights equal to
// autopsy.csv's rows.
func fewSlow(t *testing.T, dir string, sum analysis.Summary) {
	t.Helper()
	vs, err := results.ReadAutopsy(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Logf("verdict %d: %s on %s: %s", v.Height, v.Cause, v.Node, v.Evidence)
	}
	if n := sum.Metrics["slow_heights"]; int(n) != len(vs) {
		t.Errorf("slow_heights %v, autopsy.csv %d rows", n, len(vs))
	}
	if blocks := sum.Metrics["blocks"]; float64(len(vs)) > 0.01*blocks {
		t.Errorf("%d of %v heights slow on a healthy run, want ≤ 1 %%", len(vs), blocks)
	}
}
