package experiment_test

import (
	"os"
	"path/filepath"
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

// TestAutopsyLateProposal is the autopsy's known answer for a slow
// proposer: v1.0.1's e2e app on validator03 alone sleeps 1.5 s in every
// PrepareProposal (its own app.toml: [node.validator03] app), so each
// height validator03 proposes waits for its proposal, in round 0 (the
// timeout to propose is 3 s). At least 90 % of the slow heights must be
// proposal_late naming validator03, and run.json and the report must
// show the node's own app setting.
func TestAutopsyLateProposal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet of the e2e app")
	}
	m := loadManifest(t, "late-proposal.toml", `cometbft_version = "v1.0.1"
app = "e2e"
[node.validator01]
[node.validator02]
[node.validator03]
app = { prepare_proposal_delay = "1500ms" }
[node.validator04]
[load]
rate = 100
duration = "20s"
`)
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 2000)
	vs, err := results.ReadAutopsy(dir)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, v := range vs {
		ok := v.Cause == analysis.CauseProposalLate && v.Node == "validator03"
		if ok {
			right++
		}
		t.Logf("autopsy: height %d (proposer %s): %s on %s (right: %v): %s", v.Height, v.Proposer, v.Cause, v.Node, ok, v.Evidence)
	}
	if len(vs) < 2 || float64(right) < 0.9*float64(len(vs)) {
		t.Errorf("%d of %d slow heights blamed on validator03's late proposal, want ≥ 2 and ≥ 90 %%", right, len(vs))
	}
	i := slices.IndexFunc(res.Run.Nodes, func(n results.Node) bool { return n.Name == "validator03" })
	if i < 0 || res.Run.Nodes[i].App["prepare_proposal_delay"] != "1500ms" {
		t.Errorf("run.json nodes %+v: want validator03 with its app's prepare_proposal_delay", res.Run.Nodes)
	}
	rep, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !strings.Contains(string(rep), "validator (app: prepare_proposal_delay = 1500ms)") {
		t.Errorf("the report's node table does not show validator03's own app setting (%v)", err)
	}
}

// TestAutopsyFullMempool overloads real nodes whose mempools hold 300
// transactions (mempool.size) with 500 tx/s, about twice what they
// commit (~250 tx/s): the mempools are full within most heights of the load,
// which mempool_full_heights counts (from the scrapes of mempool_size,
// against the capacity run.json records), the report opens its autopsy
// with it, and a slow height, if any, is mempool_full.
func TestAutopsyFullMempool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet")
	}
	m := loadManifest(t, "full-mempool.toml", `[config]
mempool.size = 300
[load]
rate = 800
duration = "10s"
`)
	res, dir := runBuilt(t, m)
	for _, n := range res.Run.Nodes {
		if n.MempoolCapacity != 300 {
			t.Errorf("run.json: %s mempool_capacity_txs %d, want 300", n.Name, n.MempoolCapacity)
		}
	}
	full, blocks := res.Summary.Metrics["mempool_full_heights"], res.Summary.Metrics["blocks"]
	t.Logf("full mempool at %v of %v heights; rejected %v of %v sent", full, blocks, res.Summary.Metrics["rejected_txs"], res.Summary.Metrics["sent_txs"])
	// 8 of 14 in the first run: the first heights fill the mempools, the
	// last ones drain them.
	if blocks == 0 || full < blocks/3 {
		t.Errorf("a mempool full at %v of %v heights, want at least a third", full, blocks)
	}
	rep, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !strings.Contains(string(rep), "**Overloaded: a mempool was full at") {
		t.Errorf("the report's autopsy does not say the run was overloaded (%v)", err)
	}
	vs, err := results.ReadAutopsy(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Logf("autopsy: height %d: %s on %s: %s", v.Height, v.Cause, v.Node, v.Evidence)
		if v.Cause != analysis.CauseMempoolFull && v.Cause != analysis.CauseHostContention {
			t.Errorf("height %d: %s, want mempool_full (or a busy host's contention)", v.Height, v.Cause)
		}
	}
}
