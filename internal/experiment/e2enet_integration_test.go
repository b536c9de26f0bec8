package experiment_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/experiment"
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
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: loadManifest(t, "sequence.toml", perturbSequenceManifest),
		Dir: dir, Env: experiment.Env{Fetcher: fetcher(t), Out: &out, Version: "test"}})
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
