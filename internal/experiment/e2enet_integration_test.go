package experiment_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// perturbSequenceManifest gives validator04 two perturbations in turn,
// as an e2e manifest's perturb = ["disconnect", "pause"]: a disconnect
// at 2 s for 4 s, then a pause at 9 s for 4 s, under 100 tx/s for 18 s.
const perturbSequenceManifest = `[node.validator01]
[node.validator02]
[node.validator03]
[node.validator04]
[perturb.validator04]
action = "disconnect"
at = "2s"
down = "4s"
[perturb.validator04-2]
node = "validator04"
action = "pause"
at = "9s"
down = "4s"
[load]
rate = 100
duration = "18s"
`

// TestPerturbSequence runs several perturbations of one node on real
// nodes: they happen in the order written, each ends before the next
// begins, the node stops committing during the last, is back at the tip
// after it, and every transaction is accounted.
func TestPerturbSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: loadManifest(t, "sequence.toml", perturbSequenceManifest),
		Dir: dir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, res, 1800)
	want := []string{"start pid", "perturb-begin disconnect 1/1, down 4s", "cut p2p links cut",
		"restore p2p links restored", "perturb-end disconnect 1/1, down 4s",
		"perturb-begin pause 1/1, down 4s", "pause SIGSTOP", "resume SIGCONT", "perturb-end pause 1/1, down 4s",
		"exit exit code 0"}
	got := nodeEvents(t, dir, "validator04")
	for i := range got {
		if got[i] == "exit signal 15" {
			got[i] = "exit exit code 0"
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("validator04's events:\n got %q\nwant %q", got, want)
	}
	stalled(t, dir, "validator04") // the last of its perturbations, the pause
	caughtUp(t, dir, "validator04", res.Run.LastHeight)
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}

// valUpdateManifest has the e2e app change the validator set twice, as
// an e2e manifest's [validator_update.HEIGHT]: validator01 to power 5 at
// height 3 (the set of height 5), validator04 removed at height 5 (the
// set of height 7).
const valUpdateManifest = `app = "e2e"
[node.validator01]
[node.validator02]
[node.validator03]
[node.validator04]
[validator_update.3]
validator01 = 5
[validator_update.5]
validator04 = 0
`

// TestValidatorUpdates runs the e2e app's validator updates on real
// nodes: /validators shows the genesis set up to height H + 1 and the
// updated one from H + 2, for each update.
func TestValidatorUpdates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	m := loadManifest(t, "valupdate.toml", valUpdateManifest)
	f := experimenttest.FetcherFor(t, m) // may wait for the node lock
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tnDir := filepath.Join(t.TempDir(), "testnet")
	up, err := experiment.Up(ctx, experiment.UpOptions{Manifest: m, Dir: tnDir, Env: experiment.Env{Fetcher: f, Out: os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	downAtCleanup(t, tnDir)
	addr := map[string]string{} // validator address → node name
	for _, n := range up.Nodes {
		home := n.Home
		if !filepath.IsAbs(home) {
			home = filepath.Join(tnDir, home)
		}
		k, err := cometbft.ReadValidatorKey(home)
		if err != nil {
			t.Fatal(err)
		}
		addr[strings.ToUpper(hex.EncodeToString(k.Address))] = n.Name
	}
	c := rpc.New(up.Nodes[1].RPC)
	for {
		st, err := c.Status(ctx)
		if err == nil && st.SyncInfo.LatestBlockHeight >= 8 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the chain did not reach height 8: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	want := map[int64]string{
		4: "validator01=1 validator02=1 validator03=1 validator04=1",
		5: "validator01=5 validator02=1 validator03=1 validator04=1",
		6: "validator01=5 validator02=1 validator03=1 validator04=1",
		7: "validator01=5 validator02=1 validator03=1",
		8: "validator01=5 validator02=1 validator03=1",
	}
	for h := int64(4); h <= 8; h++ {
		set, err := c.ValidatorSet(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range set {
			got = append(got, fmt.Sprintf("%s=%d", addr[v.Address], v.Power))
		}
		slices.Sort(got)
		if s := strings.Join(got, " "); s != want[h] {
			t.Errorf("validators at height %d: %s, want %s", h, s, want[h])
		}
	}
}

// stateSyncManifest has validator04 join at height 8 by state sync from
// the snapshots the e2e app of the others takes every 3 heights.
const stateSyncManifest = `[app]
kind = "e2e"
snapshot_interval = 3
[node.validator01]
[node.validator02]
[node.validator03]
[node.validator04]
start_at = 8
state_sync = true
`

// TestStateSync starts a node late by state sync on real nodes: it starts
// once the chain reached its start_at height, with a trusted height and
// hash cometlab took from the chain; it catches up, restored a snapshot
// (its earliest stored block is above 1: it did not replay the chain
// from genesis) and then follows the chain.
func TestStateSync(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	m := loadManifest(t, "statesync.toml", stateSyncManifest)
	f := experimenttest.FetcherFor(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tnDir := filepath.Join(t.TempDir(), "testnet")
	var out bytes.Buffer
	up, err := experiment.Up(ctx, experiment.UpOptions{Manifest: m, Dir: tnDir, Env: experiment.Env{Fetcher: f, Out: &out}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	downAtCleanup(t, tnDir)
	if !strings.Contains(out.String(), "validator04 started at height") || !strings.Contains(out.String(), "by state sync (trusted height") {
		t.Errorf("no line saying validator04 started by state sync:\n%s", out.String())
	}
	var late, other *rpc.Client
	for _, n := range up.Nodes {
		switch n.Name {
		case "validator04":
			late = rpc.New(n.RPC)
		case "validator01":
			other = rpc.New(n.RPC)
		}
	}
	st, err := late.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e := st.SyncInfo.EarliestBlockHeight; e <= 1 {
		t.Errorf("validator04's earliest block is %d: it replayed the chain instead of restoring a snapshot", e)
	}
	// It follows the chain: it reaches the others' height of now + 3.
	top, err := other.Height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for {
		h, err := late.Height(ctx)
		if err == nil && h >= top+3 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("validator04 at height %d (%v), did not reach %d", h, err, top+3)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
