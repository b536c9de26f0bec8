package experiment_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// releaseSource copies v0.40.0's module source (from the module cache,
// downloaded if need be) into a temporary directory.
func releaseSource(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", cometbft.Module+"@v0.40.0").Output()
	if err != nil {
		t.Fatalf("go mod download: %v", err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download: %s (%v)", out, err)
	}
	dir := filepath.Join(t.TempDir(), "cometbft")
	if err := os.CopyFS(dir, os.DirFS(info.Dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=cometlab", "-c", "user.email=cometlab@localhost",
		"-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestSourceTree runs the default testnet on a CometBFT source tree: v0.40.0's
// module source, committed to a new git repository, with one log message
// changed and not committed, and with the capabilities the tree's line
// (read from its source) has and a binary's lacks: libp2p, and ML-DSA-65
// validator keys made by cometlab's keygen built in the tree. Every
// transaction commits; each node's log carries the changed message (the
// tree's code ran, not the release's) and says it uses libp2p; every
// validator key and the genesis are ML-DSA-65; run.json names the tree's
// commit, that it was dirty and the hash of its diff; and a second build
// of the same tree is the cached one, while another change builds anew.
func TestSourceTree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a CometBFT tree and runs a real testnet on it")
	}
	experimenttest.Proves(t)
	tree := releaseSource(t)
	gitIn(t, tree, "init", "-q", "-b", "my-branch")
	gitIn(t, tree, "add", ".")
	gitIn(t, tree, "commit", "-qm", "v0.40.0's module source")
	commit := gitIn(t, tree, "rev-parse", "HEAD")
	file := filepath.Join(tree, "state", "execution.go")
	code, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const changed = "finalized block (cometlab source tree)"
	edited := strings.Replace(string(code), `"finalized block",`, `"`+changed+`",`, 1)
	if edited == string(code) {
		t.Fatal("v0.40.0's state/execution.go has no \"finalized block\" log message")
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	m := loadManifest(t, "source.toml", "cometbft_source = \""+tree+"\"\nlibp2p = true\nkey_type = \""+cometbft.KeyMLDSA65+"\"\n"+
		"log_level = \"p2p:info,state:info,*:error\"\n[load]\nrate = 100\nduration = \"8s\"\n")
	if m.CometBFTVersion != "v0.40.0" || m.CometBFTSource == nil || m.CometBFTSource.Tree != tree {
		t.Fatalf("resolved as %s, %+v", m.CometBFTVersion, m.CometBFTSource)
	}
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 800)
	for _, n := range m.Nodes {
		log, err := os.ReadFile(filepath.Join(dir, results.LogsDir, n.Name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), changed) {
			t.Errorf("%s's log lacks the tree's own message %q: the release ran, not the tree", n.Name, changed)
		}
		if !strings.Contains(string(log), "Using libp2p transport") {
			t.Errorf("%s's log does not say it uses libp2p", n.Name)
		}
	}
	checkKeyHomes(t, dir, cometbft.KeyMLDSA65)
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := cometbft.ReadSource(t.Context(), cometbft.Source{Tree: tree})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Sources) != 1 {
		t.Fatalf("run.json sources %+v, want one", run.Sources)
	}
	s := run.Sources[0]
	if s.Path != tree || s.Commit != commit || s.Branch != "my-branch" || !s.Dirty || s.DiffHash == "" || s.DiffHash != want.DiffHash ||
		s.Line != "v0.40" || s.Version != "v0.40.0" || s.SemVer != "0.39.0" || len(s.Nodes) != len(m.Nodes) || !strings.HasSuffix(s.Describe, "-dirty") {
		t.Errorf("run.json source %+v, want commit %s, dirty with diff %s", s, commit, want.DiffHash)
	}
	if !strings.Contains(run.Nodes[0].Version, "tree "+tree) {
		t.Errorf("run.json node version %q does not name the tree", run.Nodes[0].Version)
	}

	// The same code again: the cached build, nothing built.
	var progress bytes.Buffer
	f := &cometbft.Fetcher{CacheDir: experimenttest.BuildFetcher(t).CacheDir, Progress: &progress}
	bin, rec, err := f.SourceProgram(t.Context(), *m.CometBFTSource, cometbft.NodeProgram)
	if err != nil || rec.Key != s.Key || progress.Len() > 0 {
		t.Fatalf("second build: %s %s, %v; progress %q", bin, rec.Key, err, progress.String())
	}
	if out, err := exec.Command(bin, "version").Output(); err != nil || strings.TrimSpace(string(out)) != "0.39.0" {
		t.Errorf("%s version: %q, %v", bin, out, err)
	}
	checkBranchHistory(t, tree, m, dir, f)
}

// checkBranchHistory commits the change TestSourceTree made to tree (a
// second commit, the tree clean), runs the testnet on it (a new build),
// and puts both runs in one history index: by commit the run of the
// first commit (dirty) comes before the second's, each with its commit
// and commit time, and both are one series, so a gate of the second
// judges it against the first (too few runs to decide: 1 < 3).
func checkBranchHistory(t *testing.T, tree string, m manifest.Resolved, first string, f *cometbft.Fetcher) {
	t.Helper()
	gitIn(t, tree, "commit", "-qam", "state: the finalized block's message is cometlab's")
	commit := gitIn(t, tree, "rev-parse", "HEAD")
	if err := experiment.BuildPrograms(t.Context(), m, f); err != nil { // under the lock TestSourceTree holds
		t.Fatal(err)
	}
	second := filepath.Join(t.TempDir(), "second")
	var out bytes.Buffer
	res, err := experiment.Run(t.Context(), experiment.Options{Manifest: m, Dir: second,
		Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"}})
	if err != nil {
		t.Fatalf("the second commit's run: %v\n%s", err, out.String())
	}
	checkAccounted(t, res, 800)
	x, err := history.Open(t.Context(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, d := range []string{second, first} { // added out of order
		if _, err := x.Add(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := x.Runs(t.Context(), history.Filter{})
	if err != nil || len(runs) != 2 {
		t.Fatalf("the index holds %d runs (%v)", len(runs), err)
	}
	trend := history.MakeTrend(runs, "committed_tps", history.ByCommit, nil)
	if len(trend.Points) != 2 || trend.Points[0].Dir != first || trend.Points[1].Dir != second ||
		!strings.Contains(trend.Points[0].Commit, "+dirty.") || trend.Points[1].Commit != commit {
		t.Fatalf("the trend by commit: %+v, want the first commit's (dirty) run, then %s", trend.Points, commit)
	}
	byDir := map[string]history.Run{}
	for _, r := range runs {
		byDir[r.Dir] = r
		if r.CommitTime.IsZero() {
			t.Errorf("%s: no commit time in the index", r.Dir)
		}
	}
	if a, b := byDir[first].Series(), byDir[second].Series(); a != b {
		t.Fatalf("the two commits' runs are two series: %v and %v", a, b)
	}
	g := history.Judge([]history.Run{byDir[first]}, []history.Run{byDir[second]}, history.DefaultGate())
	if g.SeriesID != byDir[first].Series().ID() || g.History != 1 || g.Verdict != history.GateInsufficient {
		t.Errorf("gate of the second commit: series %s, %d earlier runs, %s", g.SeriesID, g.History, g.Verdict)
	}
}

// TestSourcePatchLibP2P runs 4 validators of v0.40.0 with the libp2p
// patch (testdata/patches) on go-libp2p: the patched release builds, every
// transaction commits, and run.json names the patch and its hash.
func TestSourcePatchLibP2P(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a patched release and runs a real libp2p testnet")
	}
	experimenttest.Proves(t)
	patch := libp2pPatch(t)
	m := loadManifest(t, "patched.toml", "cometbft_version = \"v0.40.0\"\ncometbft_patches = [\""+patch+"\"]\nlibp2p = true\n"+
		"log_level = \"p2p:info,*:error\"\n[load]\nrate = 100\nduration = \"8s\"\n")
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 800)
	log, err := os.ReadFile(filepath.Join(dir, results.LogsDir, "validator01.log"))
	if err != nil || !strings.Contains(string(log), "Using libp2p transport") {
		t.Errorf("validator01's log does not say it uses libp2p (%v)", err)
	}
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Sources) != 1 || run.Sources[0].Release != "v0.40.0" || len(run.Sources[0].Patches) != 1 ||
		run.Sources[0].Patches[0].Path != patch || len(run.Sources[0].Patches[0].SHA256) != 64 {
		t.Errorf("run.json sources %+v", run.Sources)
	}
}

// TestUpgradeToSource rolls validator04 of the default testnet (v0.40.0)
// to a CometBFT tree (v0.40.0's module source, a plain directory, one log
// message changed) 3 s into 10 s of 100 tx/s: every transaction commits,
// validator04's log carries the tree's message after the upgrade and no
// other node's does, and run.json names the upgrade's target and the
// tree's source record with validator04 as its node.
func TestUpgradeToSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a CometBFT tree and upgrades a node of a real testnet to it")
	}
	experimenttest.Proves(t)
	tree := releaseSource(t)
	file := filepath.Join(tree, "state", "execution.go")
	code, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const changed = "finalized block (cometlab upgrade tree)"
	if err := os.WriteFile(file, []byte(strings.Replace(string(code), `"finalized block",`, `"`+changed+`",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	m := loadManifest(t, "upgrade.toml", "[load]\nrate = 100\nduration = \"10s\"\n"+
		"[perturb.validator04]\naction = \"upgrade\"\nat = \"3s\"\nto_source = \""+tree+"\"\n")
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 1000)
	if res.Summary.Metrics["upgrades"] != 1 {
		t.Errorf("upgrades %v, want 1", res.Summary.Metrics["upgrades"])
	}
	for _, n := range m.Nodes {
		log, err := os.ReadFile(filepath.Join(dir, results.LogsDir, n.Name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(log), changed); has != (n.Name == "validator04") {
			t.Errorf("%s's log has the tree's message: %v", n.Name, has)
		}
	}
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Sources) != 1 || run.Sources[0].Path != tree || run.Sources[0].TreeHash == "" || len(run.Sources[0].Nodes) != 1 ||
		run.Sources[0].Nodes[0] != "validator04" {
		t.Errorf("run.json sources %+v, want the tree, run by validator04", run.Sources)
	}
	for _, n := range run.Nodes {
		if n.Name == "validator04" && (n.Version != "v0.40.0" || n.UpgradeTo != "tree:"+tree) {
			t.Errorf("run.json validator04: version %q, upgrade_to %q", n.Version, n.UpgradeTo)
		}
	}
}
