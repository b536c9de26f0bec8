package experiment_test

import (
	"bytes"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// perturbed returns the default testnet under 100 tx/s for d with the
// --perturb flag value flag laid over it.
func perturbed(t *testing.T, d time.Duration, flag string) manifest.Resolved {
	t.Helper()
	return underLoad(t, d, func(m *manifest.Manifest) error {
		if flag == "" {
			return nil
		}
		node, p, err := manifest.ParsePerturb(flag)
		m.AddPerturb(node, p)
		return err
	})
}

// underLoad returns the default testnet under 100 tx/s for d, with lay
// applied to its manifest.
func underLoad(t *testing.T, d time.Duration, lay func(m *manifest.Manifest) error) manifest.Resolved {
	t.Helper()
	m := manifest.Default()
	rate := 100.0
	if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d}); err != nil {
		t.Fatal(err)
	}
	if err := lay(&m); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// nodeEvents returns node's events in dir as "kind detail" lines, the pid
// of a start blanked.
func nodeEvents(t *testing.T, dir, node string) []string {
	t.Helper()
	return eventLines(t, dir, node, func(e results.Event) string {
		switch e.Kind {
		case results.EventStart:
			return "pid"
		case results.EventWipe:
			return "data"
		}
		return e.Detail
	})
}

// eventLines returns node's events in dir as "kind detail" lines, each
// detail as detail rewrites it.
func eventLines(t *testing.T, dir, node string, detail func(results.Event) string) []string {
	t.Helper()
	evs, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.Node == node {
			out = append(out, e.Kind+" "+detail(e))
		}
	}
	return out
}

// caughtUp checks that node committed the run's last height (adoption.csv).
func caughtUp(t *testing.T, dir, node string, last int64) {
	t.Helper()
	ad, err := results.ReadAdoption(dir)
	if err != nil {
		t.Fatal(err)
	}
	var top int64
	for _, a := range ad {
		if a.Node == node {
			top = max(top, a.Height)
		}
	}
	if top < last {
		t.Errorf("%s adopted up to height %d, the run's last height is %d: it did not catch up", node, top, last)
	}
}

// stalled checks that node committed no height while it was down, from
// half a second after its perturb-begin until its perturb-end: the
// perturbation did take it off the network.
func stalled(t *testing.T, dir, node string) {
	t.Helper()
	evs, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	var begin, end int64
	for _, e := range evs {
		switch {
		case e.Node == node && e.Kind == results.EventPerturbBegin:
			begin = e.At
		case e.Node == node && e.Kind == results.EventPerturbEnd:
			end = e.At
		}
	}
	if begin == 0 || end == 0 {
		t.Fatalf("no perturb-begin and perturb-end of %s", node)
	}
	ad, err := results.ReadAdoption(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ad {
		if a.Node == node && a.At > begin+int64(500*time.Millisecond) && a.At < end {
			t.Errorf("%s committed height %d %.1f s into its down period", node, a.Height, float64(a.At-begin)/1e9)
		}
	}
}

// perturbationsManifest is 6 validators under 100 tx/s for 35 s,
// validator01 the load's target, each other validator perturbed in turn,
// one at a time (5 of 6 hold more than 2/3): each perturbation of
// TestPerturbations on its own node, in one run. (A full node restarted
// mid-load once kept 132 committed transactions in its mempool until the
// drain timed out: every perturbed node here is a validator, as before.)
const perturbationsManifest = `[node.validator01]
[node.validator02]
[node.validator03]
[node.validator04]
[node.validator05]
[node.validator06]
[perturb.validator02]
action = "kill"
at = "2s"
down = "7s"
[perturb.validator03]
action = "pause"
at = "12s"
down = "4s"
[perturb.validator04]
action = "disconnect"
at = "19s"
down = "4s"
[perturb.validator05]
action = "wipe"
at = "26s"
down = "1s"
[perturb.validator06]
action = "restart"
at = "29s"
[load]
rate = 100
duration = "35s"
`

// TestPerturbations runs every perturbation on real nodes in one run,
// each on its own validator in turn (perturbationsManifest): the run is
// complete, every transaction is accounted, each perturbed node stopped
// committing while down and is back at the tip, events.csv has what was
// done to each, the autopsy blames ≥ 90 % of the slow heights on a
// perturbed node, and the killed validator (down 7 s: long enough to be
// due to propose) leaves slow heights and absent precommits, while the
// load's target, never perturbed, is never absent.
func TestPerturbations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	want := map[string][]string{
		"validator02": {"start pid", "perturb-begin kill 1/1, down 7s", "kill SIGKILL", "exit signal 9",
			"start pid", "perturb-end kill 1/1, down 7s", "exit exit code 0"},
		"validator03": {"start pid", "perturb-begin pause 1/1, down 4s", "pause SIGSTOP",
			"resume SIGCONT", "perturb-end pause 1/1, down 4s", "exit exit code 0"},
		"validator04": {"start pid", "perturb-begin disconnect 1/1, down 4s", "cut p2p links cut",
			"restore p2p links restored", "perturb-end disconnect 1/1, down 4s", "exit exit code 0"},
		"validator05": {"start pid", "perturb-begin wipe 1/1, down 1s", "term SIGTERM", "exit exit code 0",
			"wipe data", "start pid", "perturb-end wipe 1/1, down 1s", "exit exit code 0"},
		"validator06": {"start pid", "perturb-begin restart 1/1", "term SIGTERM", "exit exit code 0",
			"start pid", "perturb-end restart 1/1", "exit exit code 0"},
	}
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: loadManifest(t, "perturbations.toml", perturbationsManifest),
		Dir: dir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Target != "validator01" {
		t.Fatalf("the load's target is %s: it must be the one node never perturbed", res.Run.Target)
	}
	checkAccounted(t, res, 3500)
	perturbedNodes := slices.Sorted(maps.Keys(want))
	for _, node := range perturbedNodes {
		caughtUp(t, dir, node, res.Run.LastHeight)
		stalled(t, dir, node)
		// A SIGTERM'd node may also exit by signal 15; either is a clean stop.
		got := nodeEvents(t, dir, node)
		for i := range got {
			if got[i] == "exit signal 15" {
				got[i] = "exit exit code 0"
			}
		}
		if !slices.Equal(got, want[node]) {
			t.Errorf("%s's events:\n got %q\nwant %q", node, got, want[node])
		}
	}
	blamed(t, dir, perturbedNodes...)
	absentOnly(t, dir, "validator02", perturbedNodes...)
	if n := res.Summary.Metrics["slow_heights"]; n == 0 {
		t.Error("no slow height while validator02, a proposer, was down for 7 s")
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}

// killOnLoad kills validator03 from outside a few seconds into the load:
// a node that dies on its own.
type killOnLoad struct {
	bytes.Buffer
	t     *testing.T
	dir   string
	after time.Duration
	armed bool
}

func (w *killOnLoad) Write(b []byte) (int, error) {
	if !w.armed && bytes.HasPrefix(b, []byte("load: ")) {
		w.armed = true
		time.AfterFunc(w.after, func() {
			evs, _ := results.ReadEvents(w.dir)
			for _, e := range evs {
				if e.Node == "validator03" && e.Kind == results.EventStart {
					pid, _ := strconv.Atoi(strings.TrimPrefix(e.Detail, "pid "))
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
	return w.Buffer.Write(b)
}

// TestNodeDiesOnItsOwn kills a validator from outside mid-load: the drain
// does not wait for it and names it dead with its signal, the chain is
// read back from the live nodes, the run is partial with the death among
// its errors, and events.csv has the exit by signal 9.
func TestNodeDiesOnItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir := filepath.Join(t.TempDir(), "run")
	out := &killOnLoad{t: t, dir: dir, after: 3 * time.Second}
	f := experimenttest.Fetcher(t) // takes the node lock, which may wait for another test
	start := time.Now()
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: perturbed(t, 8*time.Second, ""), Dir: dir, Env: experiment.Env{Fetcher: f, Out: out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	// A drain of seconds after the load; a timeout on the dead node would
	// add the 60 s drain timeout. (The load's end to the run's, not the
	// wall time: a busy machine starts the testnet slower.)
	if el := res.Run.Ended.Sub(res.Run.LoadEnd); res.Run.LoadEnd.IsZero() || el > 60*time.Second {
		t.Errorf("the run ended %s after its load (%s in all): something waited a timeout on the dead node", el, time.Since(start))
	}
	if res.Run.Status != results.StatusPartial {
		t.Errorf("status %s, want partial", res.Run.Status)
	}
	joined := strings.Join(res.Run.Errors, "\n")
	if !strings.Contains(joined, "validator03 exited at") || !strings.Contains(joined, "killed by signal 9") || !strings.Contains(joined, "on its own") {
		t.Errorf("run errors do not name the death: %q", res.Run.Errors)
	}
	if strings.Contains(joined, "deadline") || strings.Contains(joined, "mempools not empty") {
		t.Errorf("a phase timed out on the dead node: %q", res.Run.Errors)
	}
	if !strings.Contains(out.String(), "not waited for: validator03 exited at") {
		t.Errorf("the drain does not name the dead node:\n%s", out.String())
	}
	m := res.Summary.Metrics
	if m["sent_txs"]+m["unsent_txs"] != 800 || m["sent_txs"] == 0 || m["committed_txs"] != m["sent_txs"] {
		t.Errorf("sent %v + unsent %v of 800, committed %v: want every one accounted for, every one sent committed",
			m["sent_txs"], m["unsent_txs"], m["committed_txs"])
	}
	if got := nodeEvents(t, dir, "validator03"); !slices.Equal(got, []string{"start pid", "exit signal 9"}) {
		t.Errorf("validator03's events: %q", got)
	}
	checkFindings(t, dir, res.Summary, "validator03")
}

// TestRotation rotates two ephemeral full nodes (dwell 2 s) under 20 s of
// load: each block-syncs from genesis and is declared caught up at least
// once (a caught-up event), is stopped and wiped, its heights are in
// adoption.csv; the run is complete with every transaction accounted.
func TestRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir, res := runSet(t, 20*time.Second, "rotate.concurrency=2", "rotate.dwell=2s")
	checkAccounted(t, res, 2000)
	evs, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"ephemeral01", "ephemeral02"} {
		got := nodeEvents(t, dir, node)
		if len(got) < 6 || got[0] != "start pid" || !slices.Contains(got, "wipe data") {
			t.Errorf("%s's events: %q", node, got)
		}
		caught := 0
		for _, e := range evs {
			if e.Node == node && e.Kind == results.EventCaughtUp {
				caught++
				t.Logf("%s caught up: %s", node, e.Detail)
			}
		}
		if caught == 0 {
			t.Errorf("%s never caught up", node)
		}
		ad, err := results.ReadAdoption(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(ad, func(a results.Adoption) bool { return a.Node == node }) {
			t.Errorf("adoption.csv has no height of %s", node)
		}
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}
