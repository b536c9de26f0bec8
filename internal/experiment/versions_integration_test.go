package experiment_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestVersionMatrix proves every release line the README names. For each
// line's proven release it builds the binary (cached after the first
// time), checks the line's facts in versions.go against the binary, the
// files of `cometbft init` and the module source, and runs it: the
// default testnet (4 validators, kvstore) under 5 s of load with every
// transaction accounted for, and the metric families its nodes scraped.
// The oldest and the newest lines that share a network run as mixed
// networks (validators 1–2 on one, 3–4 on the other), which is each of
// those lines' run; the others run alone. A pair the facts say cannot
// share a network must never commit, for the reason given, and a release
// that cannot be built is refused with the reason and the nearest one
// that can. COMETLAB_MIXED=all runs every pair of lines.
func TestVersionMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds (once) and runs a testnet of every release line")
	}
	experimenttest.Proves(t)
	f := experimenttest.BuildFetcher(t) // the builds, outside the node lock
	ctx := context.Background()
	lines := cometbft.Lines()
	bins := map[string]string{}
	inits := map[string]initFiles{}
	for _, l := range lines {
		bin, err := f.Binary(ctx, l.Proven)
		if err != nil {
			t.Fatalf("%s: %v", l.Proven, err)
		}
		bins[l.Prefix] = bin
		inits[l.Prefix] = readInit(t, bin)
	}
	experimenttest.LockNodes(t)
	t.Run("refused", func(t *testing.T) {
		_, err := f.Binary(ctx, "v0.34.35")
		if !errors.Is(err, cometbft.ErrNotBuildable) {
			t.Fatalf("v0.34.35: want ErrNotBuildable, got %v", err)
		}
		for _, w := range []string{"github.com/informalsystems/kit@", "403 Forbidden", "github.com/tendermint/tendermint", "v0.34.33"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error lacks %q:\n%v", w, err)
			}
		}
	})
	pairs := [][2]string{{"v0.34", "v0.37"}, {"v0.38", "v1.0"}, {"v0.37", "v0.38"}}
	if os.Getenv("COMETLAB_MIXED") == "all" {
		pairs = nil
		for i, a := range lines {
			for _, b := range lines[i+1:] {
				pairs = append(pairs, [2]string{a.Prefix, b.Prefix})
			}
		}
	}
	// A line whose release ran (every transaction accounted, its metric
	// families scraped on its own nodes) in a mixed network needs no run
	// of its own.
	ran := map[string]bool{}
	for _, p := range pairs {
		a, _ := cometbft.LineByPrefix(p[0])
		b, _ := cometbft.LineByPrefix(p[1])
		mix := cometbft.Mix(a, b)
		name := a.Proven + "+" + b.Proven
		if !mix.Starts {
			t.Run(name+" never starts", func(t *testing.T) { checkNeverStarts(t, a, b, bins, mix) })
			continue
		}
		t.Run(name, func(t *testing.T) {
			if checkMixed(t, f, a, b, mix) {
				ran[a.Prefix], ran[b.Prefix] = true, true
			}
		})
	}
	for _, l := range lines {
		t.Run(l.Proven, func(t *testing.T) {
			checkBinaryFacts(t, l, bins[l.Prefix], inits)
			checkSourceFacts(t, l)
			if ran[l.Prefix] {
				t.Logf("%s ran in a mixed network: no run of its own", l.Proven)
				return
			}
			dir := filepath.Join(t.TempDir(), "run")
			res, err := runVersions(t, f, dir, l.Proven, l.Proven)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounted(t, res, 1000)
			checkMetricFamilies(t, dir, l, nil)
		})
	}
}

// checkMixed runs validators of lines a and b together and checks that
// every transaction is accounted for, that each line's nodes scraped its
// metric families, and that the logs show the evidence of the facts'
// reasons; a pair that may halt passes when it commits everything, or
// when it halted for the reason given. It reports whether the network
// committed everything (then both lines ran).
func checkMixed(t *testing.T, f *cometbft.Fetcher, a, b cometbft.Line, mix cometbft.Mixing) bool {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	res, err := runVersions(t, f, dir, a.Proven, b.Proven)
	logs := readLogs(t, filepath.Join(dir, results.LogsDir))
	if mix.MayHalt && (err != nil || res.Run.Status != results.StatusComplete) {
		if !strings.Contains(logs, "invalid block time") {
			t.Errorf("the run failed (%v, %v) and no node log shows why the facts say it may: %s", err, res.Run.Errors, strings.Join(mix.Why, "; "))
		}
		t.Logf("halted, as the facts say it may: %v", err)
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, res, 1000)
	checkMetricFamilies(t, dir, a, []string{"validator01", "validator02"})
	checkMetricFamilies(t, dir, b, []string{"validator03", "validator04"})
	for i, e := range mix.Evidence {
		if !strings.Contains(logs, e) && !(mix.MayHalt && e == "invalid block time") {
			t.Errorf("no node log shows %q, which the facts give for: %s", e, mix.Why[i])
		}
	}
	if !slices.Contains(mix.Evidence, "unknown message") && strings.Contains(logs, "unknown message") {
		t.Error("a node dropped a peer on an unknown message, which the facts do not expect")
	}
	return true
}

// runVersions runs the default experiment (4 validators, 200 tx/s for
// 5 s) with validators 1–2 on release a and 3–4 on release b.
func runVersions(t *testing.T, f *cometbft.Fetcher, dir, a, b string) (experiment.Result, error) {
	t.Helper()
	m := experimenttest.Resolved(t, 200, 5*time.Second)
	m.CometBFTVersion = a
	for i := range m.Nodes {
		m.Nodes[i].Version = a
		if i >= len(m.Nodes)/2 {
			m.Nodes[i].Version = b
		}
	}
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir, Env: experiment.Env{Fetcher: f, Out: &out, Version: "test", StartTimeout: 60 * time.Second}})
	t.Log(out.String())
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
	return res, err
}

// initFiles are the config.toml and genesis consensus_params that
// `cometbft init` writes, flattened to dotted keys (values as TOML or JSON
// writes them).
type initFiles struct {
	config, genesisParams map[string]string
}

func readInit(t *testing.T, bin string) initFiles {
	t.Helper()
	home := t.TempDir()
	if out, err := exec.Command(bin, "init", "--home", home).CombinedOutput(); err != nil {
		t.Fatalf("%s init: %v\n%s", bin, err, out)
	}
	var in initFiles
	b, err := os.ReadFile(cometbft.ConfigFile(home))
	if err == nil {
		in.config, err = compare.FlattenTOML("", b)
	}
	if err != nil {
		t.Fatalf("%s init: config.toml: %v", bin, err)
	}
	var gen map[string]string
	if b, err = os.ReadFile(cometbft.GenesisFile(home)); err == nil {
		gen, err = compare.FlattenJSON("", b)
	}
	if err != nil {
		t.Fatalf("%s init: genesis.json: %v", bin, err)
	}
	in.genesisParams = map[string]string{}
	for k, v := range gen {
		if k, ok := strings.CutPrefix(k, "consensus_params."); ok && v != "{}" { // an empty table has no key
			in.genesisParams[k] = v
		}
	}
	return in
}

// keyDiff returns the keys of a not in b, sorted.
func keyDiff(a, b map[string]string) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// checkBinaryFacts checks a line's facts against its proven release's
// binary: what it reports, how it was built, and the files of its init.
func checkBinaryFacts(t *testing.T, l cometbft.Line, bin string, inits map[string]initFiles) {
	t.Helper()
	if v, err := cometbft.ReportedVersion(context.Background(), bin); err != nil || v != l.Reports {
		t.Errorf("cometbft version prints %q (%v), facts say %q", v, err, l.Reports)
	}
	if rec, err := cometbft.ReadBuildRecord(filepath.Dir(bin)); err != nil {
		t.Error(err)
	} else if rec != nil && (rec.Declares != l.ModulePath || (rec.Method == cometbft.MethodInstall) != (l.ModulePath == cometbft.ModuleOf(l.Proven))) {
		t.Errorf("built by %s from a go.mod declaring %s; facts say %s", rec.Method, rec.Declares, l.ModulePath)
	}
	in := inits[l.Prefix]
	if got := in.config["db_backend"]; got != strconv.Quote(l.DBBackend) {
		t.Errorf("db_backend %s, facts say %s", got, l.DBBackend)
	}
	if got := in.config["instrumentation.namespace"]; got != strconv.Quote(l.MetricsNamespace) {
		t.Errorf("instrumentation.namespace %s, facts say %s", got, l.MetricsNamespace)
	}
	for key, want := range map[string]int64{"block.max_bytes": l.BlockMaxBytes, "block.max_gas": l.BlockMaxGas} {
		if got := in.genesisParams[key]; got != strconv.Quote(strconv.FormatInt(want, 10)) {
			t.Errorf("genesis consensus_params.%s %s, facts say %d", key, got, want)
		}
	}
	checkScaledFacts(t, l, in)
	if l.Parent == "" {
		return
	}
	p := inits[l.Parent]
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"config.toml keys added", keyDiff(in.config, p.config), l.ConfigAdded},
		{"config.toml keys removed", keyDiff(p.config, in.config), l.ConfigRemoved},
		{"genesis consensus_params added", keyDiff(in.genesisParams, p.genesisParams), l.GenesisAdded},
		{"genesis consensus_params removed", keyDiff(p.genesisParams, in.genesisParams), l.GenesisRemoved},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s against %s: %q, facts say %q", c.what, l.Parent, c.got, c.want)
		}
	}
}

// checkScaledFacts checks the defaults of the keys a time-scaled testnet
// scales (the line's ScaledTimes, ScaledRates, GenesisScaledTimes)
// against the files of `cometbft init`, on the lines that can be scaled.
func checkScaledFacts(t *testing.T, l cometbft.Line, in initFiles) {
	t.Helper()
	if why := cometbft.TimeScaleProblem(l.Proven, 2); why != "" {
		t.Logf("no time scale on %s (%s): its scaled keys are not checked", l.Proven, why)
		return
	}
	for _, c := range []struct {
		file       string
		facts, got map[string]string
		quote      bool
	}{{"config.toml", l.ScaledTimes, in.config, true}, {"config.toml", l.ScaledRates, in.config, false},
		{"genesis consensus_params", l.GenesisScaledTimes, in.genesisParams, true}} {
		for key, def := range c.facts {
			want := def
			if c.quote {
				want = strconv.Quote(def)
			}
			if got := c.got[key]; got != want {
				t.Errorf("%s %s = %s, the time-scale facts say %s", c.file, key, got, want)
			}
		}
	}
}

// countedOnly are default families that a node exposes only once they
// have counted or been set (go-kit metrics without observations): v1.0
// sets state_block_store_base_height only once it prunes.
var countedOnly = []string{"mempool_evicted_txs", "mempool_failed_txs", "mempool_rejected_txs", "state_block_store_base_height",
	"consensus_late_votes", // exported once a late vote arrives, which a short run may not see
	// v0.39+: exported once an app-side mempool reaps, or adaptive sync runs
	"mempool_reaped_txs", "blocksync_ingested_blocks", "blocksync_already_included_blocks", "blocksync_ingested_block_duration"}

// checkMetricFamilies checks the families a run scraped (from nodes, or
// every node when nil) against the line's facts: a family of the default
// scrape the line lacks is absent and its equivalent present; every other
// one is present.
func checkMetricFamilies(t *testing.T, dir string, l cometbft.Line, nodes []string) {
	t.Helper()
	seen := map[string]bool{}
	if err := results.ScanMetrics(dir, func(m *results.Metric) error {
		if nodes != nil && !slices.Contains(nodes, m.Node) {
			return nil
		}
		name := strings.TrimPrefix(m.Name, l.MetricsNamespace+"_")
		for _, suffix := range []string{"_sum", "_count", "_bucket"} {
			name = strings.TrimSuffix(name, suffix)
		}
		seen[name] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	equivalents := map[string]bool{}
	for _, other := range cometbft.Lines() {
		for _, eq := range other.MetricsAbsent {
			equivalents[eq] = true
		}
	}
	for _, fam := range collect.NewSeries(l.MetricsNamespace, false).Families() {
		name, ok := strings.CutPrefix(fam, l.MetricsNamespace+"_")
		if !ok || slices.Contains(countedOnly, name) {
			continue
		}
		eq, absent := l.MetricsAbsent[name]
		switch {
		case absent && seen[name]:
			t.Errorf("the run scraped %s, which the facts say %s lacks", name, l.Prefix)
		case absent && eq != "" && !seen[eq]:
			t.Errorf("the run did not scrape %s, which the facts give as %s's %s", eq, l.Prefix, name)
		case !absent && !equivalents[name] && !seen[name]:
			t.Errorf("the run did not scrape %s", name)
		}
	}
}

// readLogs returns every node log of a run, concatenated.
func readLogs(t *testing.T, dir string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// checkNeverStarts starts 2 + 2 validators of lines a and b and checks
// that the nodes' logs show the facts' reasons and that no node commits
// height 1.
func checkNeverStarts(t *testing.T, a, b cometbft.Line, bins map[string]string, mix cometbft.Mixing) {
	t.Helper()
	dir := t.TempDir()
	spec := cometbft.Spec{ChainID: "matrix-never-starts", App: manifest.AppKVStore}
	for i, l := range []cometbft.Line{a, a, b, b} {
		spec.Nodes = append(spec.Nodes, cometbft.NodeSpec{Name: fmt.Sprintf("validator%02d", i+1), Mode: cometbft.ModeValidator,
			Power: 1, Version: l.Proven, Binary: bins[l.Prefix]})
	}
	homes, err := cometbft.Generate(context.Background(), filepath.Join(dir, "nodes"), spec)
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(homes, nil)
	logDir := filepath.Join(dir, "logs")
	if err := tn.Start(testnet.Options{LogDir: logDir}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		tn.Stop(10 * time.Second)
		if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
			t.Errorf("node processes left behind: %v", left)
		}
	}()
	var missing []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		logs := readLogs(t, logDir)
		missing = missing[:0]
		for _, e := range mix.Evidence {
			if !strings.Contains(logs, e) {
				missing = append(missing, e)
			}
		}
		if len(missing) == 0 {
			break
		}
	}
	if len(missing) > 0 {
		t.Errorf("after 60 s no node log shows %q, which the facts give for: %s", missing, strings.Join(mix.Why, "; "))
	}
	for _, n := range tn.Nodes {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		h, err := n.RPC.Height(ctx)
		cancel()
		if err == nil && h > 0 {
			t.Errorf("%s (%s) committed height %d; the facts say the chain never starts: %s", n.Name, n.Binary, h, strings.Join(mix.Why, "; "))
		}
	}
}
