package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestRunE2EApp runs CometBFT's e2e app node (v0.40.0) with 2 KiB vote
// extensions under load and checks, from the nodes themselves, that every
// validator extended its votes with exactly 2048 bytes and verified its
// peers' extensions of that size, that every transaction is accounted for,
// and that run.json and the report state the app and its settings.
func TestRunE2EApp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet of the e2e app")
	}
	experimenttest.Proves(t)
	const size = 2048
	m := manifest.Default()
	rate, d := 200.0, 10*time.Second
	app := manifest.AppE2E
	if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d, App: &app}); err != nil {
		t.Fatal(err)
	}
	if err := m.Set("app.vote_extension_size", "2048"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	res, dir := runBuilt(t, r)
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
	checkAccounted(t, res, 2000)

	// The e2e app logs every extension it makes and every one it verifies.
	generated := regexp.MustCompile(`generated vote extension .* len=(\d+)`)
	verified := regexp.MustCompile(`verified vote extension value .* num=(\d+)`)
	for _, n := range []string{"validator01", "validator02", "validator03", "validator04"} {
		b, err := os.ReadFile(filepath.Join(dir, results.LogsDir, n+".log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range []*regexp.Regexp{generated, verified} {
			ms := re.FindAllStringSubmatch(string(b), -1)
			if len(ms) < 5 {
				t.Errorf("%s: %d log lines matching %q, want one per height (≥ 5)", n, len(ms), re)
			}
			for _, m := range ms {
				if m[1] != "2048" {
					t.Errorf("%s: %q, want an extension of %d bytes", n, m[0], size)
					break
				}
			}
		}
	}
	if res.Run.App != manifest.AppE2E || res.Run.AppConfig["vote_extension_size"] != int64(size) {
		t.Errorf("run.json app %q %v", res.Run.App, res.Run.AppConfig)
	}
	rep, _ := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if !strings.Contains(string(rep), "e2e (vote_extension_size = 2048, vote_extensions_enable_height = 1)") {
		t.Error("the report does not state the app and its settings")
	}
}

// TestRunExternalApp runs the release's own kvstore as a user's external
// ABCI app (abci-cli kvstore over a socket, one process beside each node)
// and checks that every transaction is accounted for, that each node's
// app logged to its own file, that the apps' resources were sampled beside
// the nodes', and that no app process is left behind.
func TestRunExternalApp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet with external apps")
	}
	experimenttest.Proves(t)
	f := experimenttest.BuildFetcher(t) // abci-cli built outside the node lock
	cli, err := f.Program(context.Background(), manifest.DefaultCometBFTVersion, cometbft.ABCICLIProgram)
	if err != nil {
		t.Fatal(err)
	}
	experimenttest.LockNodes(t)
	res, dir := runText(t, f, "external.toml", `
[app]
command = ["`+cli+`", "kvstore", "--address", "{addr}", "--persist", "{home}/data/app"]
abci = "socket"
[load]
rate = 200
duration = "10s"
`)
	checkAccounted(t, res, 2000)
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
	for _, n := range []string{"validator01", "validator04"} {
		b, err := os.ReadFile(filepath.Join(dir, results.LogsDir, n+".app.log"))
		if err != nil || !strings.Contains(string(b), "abci-server") {
			t.Errorf("%s's app log: %v, %.200q", n, err, b)
		}
	}
	res2, err := os.ReadFile(filepath.Join(dir, results.ResourceFile))
	if err != nil || !strings.Contains(string(res2), "validator01/app") {
		t.Errorf("resources.csv has no rows of validator01's app (%v)", err)
	}
	if res.Run.App != manifest.AppExternal {
		t.Errorf("run.json app %q", res.Run.App)
	}
}
