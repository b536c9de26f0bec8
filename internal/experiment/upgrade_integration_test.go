package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// upgraded are the validators TestRollingUpgrade upgrades, one at a time,
// and when: every one but the load's target (validator01), whose upgrade
// would cut its clients off.
var upgraded = []struct{ node, at string }{{"validator02", "1s"}, {"validator03", "5s"}, {"validator04", "9s"}}

// TestRollingUpgrade rolls three of four v1.0.0 validators to v1.0.1, 4 s
// apart, under 12 s of 100 tx/s: the run is complete and every
// transaction committed, the network kept committing through each
// upgrade, each upgraded node is at the tip at the end, its events show
// the stop, the start with v1.0.1's binary and /status reporting 1.0.1,
// run.json names the upgrade, and the figures of each upgrade are in the
// summary and the report.
func TestRollingUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	m := underLoad(t, 12*time.Second, func(m *manifest.Manifest) error {
		m.CometBFTVersion = "v1.0.0"
		for _, u := range upgraded {
			node, p, err := manifest.ParsePerturb(u.node + ":upgrade@" + u.at + ",to=v1.0.1")
			if err != nil {
				return err
			}
			m.AddPerturb(node, p)
		}
		return nil
	})
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 1200)
	s := res.Summary
	if s.Metrics["upgrades"] != 3 || s.Metrics["upgrade_network_stalls"] != 0 || s.Metrics["upgrade_mixed_version_s"] <= 0 {
		t.Errorf("upgrades %v, network stalls %v, mixed-version period %v s: want 3, 0 and > 0",
			s.Metrics["upgrades"], s.Metrics["upgrade_network_stalls"], s.Metrics["upgrade_mixed_version_s"])
	}
	for _, p := range s.Perturbations {
		t.Logf("%s %s: downtime %.2f s, catch-up %.2f s, %v heights committed by the others meanwhile", p.Node, p.Detail,
			p.Figures["upgrade_downtime_s"], p.Figures["upgrade_catch_up_s"], p.Figures["upgrade_network_heights"])
		for _, id := range []string{"upgrade_downtime_s", "upgrade_catch_up_s", "upgrade_network_heights"} {
			if _, ok := p.Figures[id]; !ok {
				t.Errorf("%s: no %s", p.Node, id)
			}
		}
	}
	t.Logf("mixed-version period %.2f s", s.Metrics["upgrade_mixed_version_s"])
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !bytes.Contains(report, []byte("### Rolling upgrade")) || !bytes.Contains(report, []byte("**kept committing**")) {
		t.Errorf("report.md has no rolling upgrade section that says the network kept committing (%v)", err)
	}
	for _, u := range upgraded {
		caughtUp(t, dir, u.node, res.Run.LastHeight)
		checkUpgradeEvents(t, dir, u.node)
	}
	for _, n := range res.Run.Nodes {
		want := "v1.0.1"
		if n.Name == "validator01" {
			want = ""
		}
		if n.Version != "v1.0.0" || n.UpgradeTo != want {
			t.Errorf("run.json node %s: version %q, upgrade_to %q; want v1.0.0 and %q", n.Name, n.Version, n.UpgradeTo, want)
		}
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}

// checkUpgradeEvents checks node's events: started, stopped by SIGTERM,
// started again with v1.0.1's binary, then /status said 1.0.1.
func checkUpgradeEvents(t *testing.T, dir, node string) {
	t.Helper()
	got := eventLines(t, dir, node, func(e results.Event) string {
		switch d := e.Detail; {
		case e.Kind == results.EventStart && strings.Contains(d, ", cometbft v1.0.1 ") && strings.Contains(d, filepath.Join("v1.0.1", "cometbft")):
			return "v1.0.1 binary"
		case e.Kind == results.EventStart:
			return "pid"
		case d == "signal 15":
			return "exit code 0" // a SIGTERM'd node may exit either way
		default:
			return d
		}
	})
	up := "upgrade 1/1, v1.0.0 → v1.0.1"
	want := []string{"start pid", "perturb-begin " + up, "term SIGTERM", "exit exit code 0", "start v1.0.1 binary",
		"perturb-end " + up, "version node_info.version 1.0.1", "exit exit code 0"}
	if !slices.Equal(got, want) {
		t.Errorf("%s's events:\n got %q\nwant %q", node, got, want)
	}
}
