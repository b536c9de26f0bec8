package experiment_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// sdkManifest is a 2-validator testnet of cometlab's SDK chain with a
// load of 2 connections × 20 tx/s × 4 s (160 signed sends) from 20
// accounts; extra goes into its [app] table.
const sdkManifest = `name = "sdk"
validators = 2
[app]
kind = "sdk"
accounts = 20
%s
[load]
rate = 20
duration = "4s"
connections = 2
`

// TestSDKChain runs cometlab's own Cosmos SDK chain (app = "sdk") as a
// user would: the chain built from sdkchain/, its genesis funding the
// accounts, the load signed for the run's chain and sent open loop, and
// every transaction accounted with the app's verdict. First a load of
// multi-sends (each to 3 accounts) the chain takes whole: all 160
// committed with code 0, gas used and
// wanted, latency per transaction, the safety check run, the chain's
// binary and its source in run.json, the SDK's own metrics scraped beside
// CometBFT's. Then the same load, unordered (no sequences: a timeout
// each), sending more than each account holds: every transaction passes
// CheckTx, is committed and fails in the app with the SDK's insufficient
// funds (sdk 5), counted so and named in the report. Last a gas limit
// the ante handler refuses: every send rejected by CheckTx, the reason in
// its reply (broadcast_tx_sync), none committed or missing.
func TestSDKChain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real SDK chain")
	}
	experimenttest.Proves(t)
	ok := loadManifest(t, "sdk.toml", strings.Replace(sdkManifest, "%s", "outputs = 3 # MsgMultiSend to 3 accounts", 1))
	broke := loadManifest(t, "sdk-broke.toml", strings.Replace(sdkManifest, "%s", "amount = 2000000000000 # twice each account's balance\nunordered = true", 1))
	starved := loadManifest(t, "sdk-starved.toml", strings.Replace(sdkManifest, "%s", "gas = 1000 # below what the ante handler charges for the bytes alone", 1))
	f := experimenttest.FetcherFor(t, ok) // builds the chain before the node lock
	run := func(m manifest.Resolved) (experiment.Result, string) {
		dir := filepath.Join(t.TempDir(), "run")
		var out bytes.Buffer
		res, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir,
			Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"}})
		t.Log(out.String())
		if err != nil {
			t.Fatal(err)
		}
		return res, dir
	}

	res, dir := run(ok)
	get := checkAccounted(t, res, 160)
	if get("app_succeeded_txs") != 160 || get("app_failed_txs") != 0 {
		t.Errorf("app verdicts %+v, want all 160 succeeded", res.Summary.AppVerdicts)
	}
	if v := res.Summary.AppVerdicts; v == nil || v.GasUsedMean < 20_000 || v.GasUsedMean > v.GasWantedMean || v.GasWantedMean != 100_000 {
		t.Errorf("gas %+v: want some used, of 100,000 wanted", v)
	}
	rows, err := results.ReadTxResults(dir)
	if err != nil || len(rows) != 160 {
		t.Fatalf("tx_results.csv: %d rows (%v), want 160", len(rows), err)
	}
	if p50, ok := res.Summary.Metrics["block_latency_p50_ms"]; !ok || p50 <= 0 {
		t.Errorf("block latency p50 %v", p50)
	}
	if s := res.Summary.Safety; s == nil || !s.Checked || s.Heights == 0 || s.Violations() != 0 {
		t.Errorf("safety %+v", s)
	}
	if !strings.HasPrefix(res.Run.Load.Signed, "MsgMultiSend of 1 stake to 3 accounts") {
		t.Errorf("run.json load.signed %q", res.Run.Load.Signed)
	}
	if res.Run.Load.Broadcast != "sync" || res.Summary.Metrics["rejected_txs"] != 0 {
		t.Errorf("run.json load.broadcast %q, %v rejected: want sync replies, none refused", res.Run.Load.Broadcast, res.Summary.Metrics["rejected_txs"])
	}
	if len(res.Run.Sources) != 1 || res.Run.Sources[0].Module != cometbft.SDKChainModule || len(res.Run.Sources[0].Nodes) != 2 {
		t.Errorf("run.json sources %+v: want the SDK chain's, for both nodes", res.Run.Sources)
	}
	if len(res.Run.Binaries) != 1 || res.Run.Binaries[0].Main != cometbft.SDKChainModule+"/cmd/sdkchain" {
		t.Errorf("run.json binaries %+v: want the SDK chain's", res.Run.Binaries)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.MetricsFile))
	if err != nil || !bytes.Contains(b, []byte(",sdkchain_")) || !bytes.Contains(b, []byte(",cometbft_consensus_height,")) {
		t.Errorf("metrics.csv (%v): want the SDK's telemetry (sdkchain_*) beside CometBFT's", err)
	}

	res, dir = run(broke)
	get = checkAccounted(t, res, 160)
	if get("app_succeeded_txs") != 0 || get("app_failed_txs") != 160 {
		t.Errorf("app verdicts %+v, want all 160 failed", res.Summary.AppVerdicts)
	}
	v := res.Summary.AppVerdicts
	if v == nil || len(v.Codes) != 1 || v.Codes[0].Codespace != "sdk" || v.Codes[0].Code != 5 || v.Codes[0].Name != "insufficient funds" {
		t.Fatalf("failures %+v: want all sdk 5, insufficient funds", v)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !bytes.Contains(md, []byte("**160 failed in the app**")) || !bytes.Contains(md, []byte("| sdk | 5 | insufficient funds | 160 |")) {
		t.Errorf("report.md (%v) does not name the failures", err)
	}

	// A gas limit below the ante handler's charge for the transaction's
	// bytes: CheckTx refuses every send, and each reply (broadcast_tx_sync)
	// says why: rejected, out of gas, none committed, none missing.
	res, _ = run(starved)
	m := res.Summary.Metrics
	if m["rejected_txs"] != 160 || m["committed_txs"] != 0 || m["missing_txs"] != 0 {
		t.Errorf("starved: rejected %v, committed %v, missing %v; want all 160 rejected", m["rejected_txs"], m["committed_txs"], m["missing_txs"])
	}
	if len(res.Summary.Rejected) != 1 {
		t.Fatalf("rejections by reason %v: want one, out of gas", res.Summary.Rejected)
	}
	for reason, n := range res.Summary.Rejected {
		if n != 160 || !strings.Contains(reason, "out of gas") {
			t.Errorf("rejected %d for %q, want 160 out of gas", n, reason)
		}
	}
}

// TestSDKUserChain runs a user's own SDK chain (sdk_binary) as a user
// would: a chain of another address prefix and token than cometlab's —
// cometlab's chain built with the prefix "lab" (-ldflags -X; a relink of
// the packages its own build compiled), standing in for a user's daemon
// — initialised by its own (the SDK's) init with
// the SDK's opinions in config.toml (pprof on :6060, which cometlab
// turns off: two nodes share the host; timeout_commit 5s, which the
// manifest sets to 1s, as a user may), its genesis written and its load
// signed by cometlab's chain for prefix lab and denom ulab, fees paid in
// ulab: all 160 sends committed and succeeded, the user's daemon and the
// load in run.json. Then the same
// daemon under a cometbft_version of another line is refused before
// anything starts, naming the CometBFT it links.
func TestSDKUserChain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real SDK chain")
	}
	experimenttest.Proves(t)
	src, err := cometbft.SDKChainSource()
	if err != nil {
		t.Fatal(err)
	}
	labd := filepath.Join(t.TempDir(), "labd")
	// -X main.cometBFTDefaults=false: its init keeps the SDK's opinions
	// in config.toml, as most SDK chains' daemons do
	build := exec.CommandContext(t.Context(), "go", "build", "-ldflags",
		"-X "+cometbft.SDKChainModule+"/app.Bech32Prefix=lab -X main.cometBFTDefaults=false", "-o", labd, "./cmd/sdkchain")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the stand-in chain: %v\n%s", err, out)
	}
	user := func(version string) string {
		return "cometbft_version = \"" + version + "\"\n" + strings.Replace(sdkManifest, "%s",
			"sdk_binary = \""+labd+"\"\nbech32_prefix = \"lab\"\ndenom = \"ulab\"\nfee = 2", 1) +
			"[config]\nconsensus.timeout_commit = \"1s\"\n"
	}
	m := loadManifest(t, "sdk-user.toml", user("v0.40.0"))
	f := experimenttest.FetcherFor(t, m)
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir, Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	get := checkAccounted(t, res, 160)
	if get("app_succeeded_txs") != 160 || get("app_failed_txs") != 0 {
		t.Errorf("app verdicts %+v, want all 160 succeeded", res.Summary.AppVerdicts)
	}
	if want := "MsgSend of 1 ulab, gas 100000, fee 2 ulab, from 20 accounts, sequenced"; res.Run.Load.Signed != want {
		t.Errorf("run.json load.signed %q, want %q", res.Run.Load.Signed, want)
	}
	if len(res.Run.Binaries) != 1 || res.Run.Binaries[0].Path != labd || len(res.Run.Sources) != 0 {
		t.Errorf("run.json binaries %+v, sources %+v: want the user's daemon, no source of cometlab's", res.Run.Binaries, res.Run.Sources)
	}
	if s := res.Summary.Safety; s == nil || !s.Checked || s.Violations() != 0 {
		t.Errorf("safety %+v", s)
	}

	wrong := loadManifest(t, "sdk-user-wrong.toml", user("v0.38.26"))
	_, err = experiment.Run(context.Background(), experiment.Options{Manifest: wrong, Dir: filepath.Join(t.TempDir(), "wrong"),
		Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"}})
	if err == nil || !strings.Contains(err.Error(), "links CometBFT v0.40.0, and cometbft_version is v0.38.26") {
		t.Errorf("a daemon of another line: %v, want it refused naming the CometBFT it links", err)
	}
}
