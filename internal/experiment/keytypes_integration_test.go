package experiment_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// mldsa65SignatureBytes is an ML-DSA-65 signature's size (FIPS 204).
const mldsa65SignatureBytes = 3309

// TestKeyTypes runs the default testnet (4 validators of v0.40.0, the
// kvstore) once per key type of v0.40.0, each under 100 tx/s for 5 s with
// one piece of duplicate-vote evidence where cometlab signs the type:
// every transaction commits, the validators' keys and the genesis's
// pub_key_types are of the type, run.json states it, the evidence is
// committed, and the whole block carries the commit's signatures (known
// answer: an ML-DSA-65 block holds at least the 3 signatures of a quorum
// of 4, 3 × 3,309 bytes). A type the facts say halts on v0.40.0
// (bls12_381, a CometBFT bug: cometbft.KeyType.Halts) is run anyway,
// past the manifest's refusal, and must halt at its first height for the
// reason given (within haltWait); then it runs on the newest proven
// release where it commits (v2.0.0-rc1). bls12_381 nodes are built with
// the bls12381 tag, which needs a C compiler (a prerequisite).
func TestKeyTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet per key type")
	}
	experimenttest.Proves(t)
	figures := map[string]string{}
	for _, k := range cometbft.KeyTypesOf(cometbft.DefaultVersion) {
		t.Run(k.Name, func(t *testing.T) {
			if k.CGO {
				if _, err := exec.LookPath("gcc"); err != nil {
					testnettest.Prereq(t, "%s nodes are built with the %s tag, which needs cgo and gcc: %v", k.Name, k.Tag, err)
				}
			}
			version := cometbft.DefaultVersion
			if k.Halts != "" { // each run in a subtest of its own: it holds the node lock until it ends
				t.Run("halts on "+version, func(t *testing.T) { checkKeyHalts(t, k) })
				if version = releaseCommitting(k.Name); version == "" {
					return
				}
			}
			t.Run("on "+version, func(t *testing.T) { figures[k.Name+" on "+version] = runKeyType(t, k.Name, version) })
		})
	}
	for _, k := range slices.Sorted(maps.Keys(figures)) {
		t.Logf("%s: %s", k, figures[k])
	}
}

// releaseCommitting returns the newest proven release whose validators
// of key type kt commit (bls12_381: v2.0.0-rc1), "" for none.
func releaseCommitting(kt string) string {
	best := ""
	for _, l := range cometbft.Lines() {
		if cometbft.KeyTypeProblem(l.Proven, kt) == "" && (best == "" || cometbft.Older(best, l.Proven)) {
			best = l.Proven
		}
	}
	return best
}

// keyLoad is how long each key type's testnet is loaded, at 100 tx/s: the
// evidence sent at the load's start is committed a block or two later,
// and the ML-DSA-65 block size holds for every block, so a few blocks
// prove what the test checks.
const keyLoad = 5 * time.Second

// haltWait is how long checkKeyHalts waits for a testnet that the facts
// say halts at its first height to advance: the start timeout of its run.
// A healthy default testnet advances two heights in about 4 s here; the
// halting one logs its CONSENSUS FAILURE at the first height, which the
// check also requires, so a timeout too short for a slow start cannot
// pass for a halt.
const haltWait = 10 * time.Second

// runKeyType runs the default testnet of release version with validators
// of key type kt under 100 tx/s for keyLoad (and a piece of evidence where
// cometlab signs kt), checks it, and returns its block figures.
func runKeyType(t *testing.T, kt, version string) string {
	t.Helper()
	evidence := 0
	if rpc.CanSign(kt) {
		evidence = 1
	}
	m := loadManifest(t, "keys.toml", fmt.Sprintf("cometbft_version = %q\nkey_type = %q\nevidence = %d\n[load]\nrate = 100\nduration = %q\n",
		version, kt, evidence, keyLoad))
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 100*keyLoad.Seconds())
	if res.Run.KeyType != kt {
		t.Errorf("run.json key_type %q, want %s", res.Run.KeyType, kt)
	}
	checkKeyHomes(t, dir, kt)
	s := res.Summary.Metrics
	if evidence > 0 && s["evidence_injected_committed"] != 1 {
		t.Errorf("evidence injected %v, committed of it %v: want 1, 1 (errors %v)", s["evidence_injected"], s["evidence_injected_committed"], res.Run.Errors)
	}
	whole, ok := s["block_whole_size_mean_bytes"]
	if !ok {
		t.Fatalf("no block_whole_size_mean_bytes (notes %v)", res.Summary.Notes)
	}
	if kt == cometbft.KeyMLDSA65 && whole < 3*mldsa65SignatureBytes {
		t.Errorf("whole block %.0f B on average, less than a quorum's 3 ML-DSA-65 signatures (%d B)", whole, 3*mldsa65SignatureBytes)
	}
	return fmt.Sprintf("whole block mean %.0f B, max %.0f B; transactions %.0f B a block; block latency p50 %.0f ms; blocks after round 0: %.0f",
		whole, s["block_whole_size_max_bytes"], s["block_size_mean_bytes"], s["block_latency_p50_ms"], s["blocks_multi_round"])
}

// checkKeyHalts runs the default testnet with validators of key type k,
// which the facts say never commit on the default release, past the
// manifest's refusal: the start must fail, a node's log showing the
// reason (the error of k.Halts).
func checkKeyHalts(t *testing.T, k cometbft.KeyType) {
	t.Helper()
	if msg := cometbft.KeyTypeProblem(cometbft.DefaultVersion, k.Name); !strings.Contains(msg, "never commit") {
		t.Fatalf("the manifest does not refuse %s on %s for it: %q", k.Name, cometbft.DefaultVersion, msg)
	}
	m := experimenttest.Resolved(t, 100, keyLoad)
	m.KeyType = k.Name // what Resolve refuses
	f := experimenttest.FetcherFor(t, m)
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	_, err := experiment.Run(t.Context(), experiment.Options{Manifest: m, Dir: dir,
		Env: experiment.Env{Fetcher: f, Out: &out, Version: "test", StartTimeout: haltWait}})
	if err == nil {
		t.Fatalf("%s validators on %s committed; the facts say they halt: %s", k.Name, cometbft.DefaultVersion, k.Halts)
	}
	logs := readLogs(t, filepath.Join(dir, results.LogsDir))
	if !strings.Contains(logs, "CONSENSUS FAILURE") || !strings.Contains(logs, "toproto: key type") {
		t.Errorf("the start failed (%v), but no node log shows the reason the facts give: %s", err, k.Halts)
	}
	checkKeyHomes(t, dir, k.Name)
	t.Logf("%s on %s halted, as the facts say: %v", k.Name, cometbft.DefaultVersion, err)
}

// checkKeyHomes checks that every validator's key is of key type kt and
// that the genesis's consensus_params.validator.pub_key_types is [kt].
func checkKeyHomes(t *testing.T, dir, kt string) {
	t.Helper()
	homes, err := filepath.Glob(filepath.Join(dir, results.NodesDir, "validator*"))
	if err != nil || len(homes) == 0 {
		t.Fatalf("validator homes %v (%v)", homes, err)
	}
	for _, h := range homes {
		key, err := cometbft.ReadValidatorKey(h)
		if err != nil || key.Type != kt {
			t.Errorf("%s: key type %q (%v), want %s", filepath.Base(h), key.Type, err, kt)
		}
	}
	b, err := os.ReadFile(cometbft.GenesisFile(homes[0]))
	if err != nil {
		t.Fatal(err)
	}
	var gen struct {
		ConsensusParams struct {
			Validator struct {
				PubKeyTypes []string `json:"pub_key_types"`
			} `json:"validator"`
		} `json:"consensus_params"`
	}
	if err := json.Unmarshal(b, &gen); err != nil {
		t.Fatal(err)
	}
	if got := gen.ConsensusParams.Validator.PubKeyTypes; !slices.Equal(got, []string{kt}) {
		t.Errorf("genesis pub_key_types %q, want [%s]", got, kt)
	}
	text, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil || !strings.Contains(string(text), fmt.Sprintf("key_type = '%s'", kt)) {
		t.Errorf("manifest.toml does not state key_type %s (%v)", kt, err)
	}
}
