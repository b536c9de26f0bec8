package experiment_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// partitioned returns the default testnet under 100 tx/s for d with the
// --partition flag value flag laid over it.
func partitioned(t *testing.T, d time.Duration, flag string) manifest.Resolved {
	t.Helper()
	return underLoad(t, d, func(m *manifest.Manifest) error {
		p, err := manifest.ParsePartition(flag)
		m.SetPartition(p)
		return err
	})
}

// TestPartition runs the two partitions of CometBFT's release testnets on
// 4 validators under 14 s of load, cut 3 s into it for 6 s: a 50/50 split,
// where no side holds more than 2/3 of the voting power, halts within 3 s
// (at most the heights already agreed upon land) and recovers after the
// heal; a 75/25 split does not halt (its majority commits), and its
// minority (validator04) commits nothing while cut off and catches up
// after the heal. Both runs are complete, every transaction is committed and the
// safety check stays silent.
func TestPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real testnets")
	}
	experimenttest.Proves(t)
	for _, tc := range []struct {
		split  string
		halted bool
	}{{"50/50", true}, {"75/25", false}} {
		t.Run(strings.ReplaceAll(tc.split, "/", "-"), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			var out bytes.Buffer
			m := partitioned(t, 14*time.Second, tc.split+"@3s,duration=6s")
			res, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: &out, Version: "test"}})
			t.Log(out.String())
			if err != nil {
				t.Fatal(err)
			}
			get := checkAccounted(t, res, 1400)
			for _, id := range []string{"partition_heights", "partition_rounds", "partition_recover_s", "partition_caught_up_s", "partition_sent_txs"} {
				t.Logf("%s = %v", id, get(id))
			}
			checkPartition(t, dir, res, tc.halted)
		})
	}
}

// checkPartition checks one partitioned run's figures, events and report.
func checkPartition(t *testing.T, dir string, res experiment.Result, halted bool) {
	t.Helper()
	mt := res.Summary.Metrics
	if got := mt["partition_halted"] == 1; got != halted {
		t.Errorf("partition_halted = %v, want %v (heights while partitioned: %v)", mt["partition_halted"], halted, mt["partition_heights"])
	}
	halt, hasHalt := mt["partition_halt_s"]
	switch {
	case halted && (!hasHalt || halt > 3 || mt["partition_heights"] > 2):
		t.Errorf("halted %v s after the cut with %v new heights: want within 3 s, at most 2 in flight", halt, mt["partition_heights"])
	case !halted && (hasHalt || mt["partition_heights"] < 1):
		t.Errorf("the majority side committed %v heights in 6 s (halt %v, %v): want it to go on", mt["partition_heights"], halt, hasHalt)
	}
	if r := mt["partition_recover_s"]; !(r > 0 && r < 15) {
		t.Errorf("partition_recover_s = %v, want within 15 s of the heal", r)
	}
	if _, ok := mt["partition_caught_up_s"]; !ok {
		t.Error("no partition_caught_up_s: a node never reached the heal's height")
	}
	if n := mt["partition_sent_txs"]; n < 500 || mt["partition_lost_txs"] != 0 || mt["partition_committed_during_txs"]+mt["partition_committed_after_txs"] != n {
		t.Errorf("sent while partitioned %v: during %v + after %v, lost %v; want about 600, all committed", n,
			mt["partition_committed_during_txs"], mt["partition_committed_after_txs"], mt["partition_lost_txs"])
	}
	if _, ok := mt["partition_rounds"]; !ok {
		t.Error("no partition_rounds: consensus_rounds not scraped while partitioned")
	}
	for _, a := range res.Summary.Anomalies {
		if strings.Contains(a, "partition") {
			t.Errorf("anomaly: %s", a)
		}
	}
	if !halted {
		minorityStalled(t, dir, "validator04")
	}
	rep, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	want := map[bool]string{true: "**The chain halted**", false: "**The chain did not halt**"}[halted]
	if err != nil || !bytes.Contains(rep, []byte("### Network partition")) || !bytes.Contains(rep, []byte(want)) {
		t.Errorf("report.md lacks the partition section saying %q (%v)", want, err)
	}
}

// minorityStalled checks that node committed no height from a second
// after the cut until the heal, and caught up after.
func minorityStalled(t *testing.T, dir, node string) {
	t.Helper()
	evs, err := results.ReadEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	var cut, heal int64
	for _, e := range evs {
		switch {
		case e.Node == "" && e.Kind == results.EventCut:
			cut = e.At
		case e.Node == "" && e.Kind == results.EventRestore:
			heal = e.At
		}
	}
	if cut == 0 || heal == 0 {
		t.Fatalf("no cut and restore event of the partition in events.csv")
	}
	ad, err := results.ReadAdoption(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ad {
		if a.Node == node && a.At > cut+int64(time.Second) && a.At < heal {
			t.Errorf("%s, cut off alone, committed height %d %.1f s into the partition", node, a.Height, float64(a.At-cut)/1e9)
		}
	}
}
