package experiment

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/testnet"
)

// TestSchedule runs testdata/schedule/*.txt: [perturb] tables in, the
// executor's timeline out.
func TestSchedule(t *testing.T) {
	resultstest.RunFiles(t, filepath.Join("testdata", "schedule", "*.txt"), func(t *testing.T, c resultstest.Case) string {
		if c.Cmd != "schedule" {
			t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
		}
		m, err := manifest.Parse("case.toml", []byte(strings.Join(c.Input, "\n")))
		if err != nil {
			return "error: " + err.Error()
		}
		r, err := m.Resolve()
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		for _, s := range append(partitionSteps(r.Partition), schedule(r.Perturbations)...) {
			b.WriteString(s.String() + "\n")
		}
		return b.String()
	})
}

// TestExecutorSkipsAfterLoad: a perturbation due after the load ended (at
// a time or a height never reached) never begins, and the wait for the
// executor does not hang on it.
func TestExecutorSkipsAfterLoad(t *testing.T) {
	tn := testnet.New([]cometbft.Home{{Name: "validator02"}, {Name: "validator03"}}, nil)
	steps := schedule([]manifest.Perturbation{
		{Node: "validator02", Action: manifest.ActionPause, Height: 1 << 40, Down: time.Second, Count: 1},
		{Node: "validator03", Action: manifest.ActionKill, At: time.Hour, Down: time.Second, Every: 2 * time.Hour, Count: 2},
	})
	x := &executor{steps: steps, tn: tn, events: func(results.Event) { t.Error("an event of a step that should not run") },
		height: func() int64 { return 5 }}
	x.start(context.Background(), time.Now(), nil)
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- x.wait(NewPrinter(&out)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("wait hangs on steps due after the load")
	}
	want := "perturbations: the load ended before these began: validator02 pause 1/1, down 1s; validator03 kill 1/2, down 1s; validator03 kill 2/2, down 1s"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

// fakeLinks records the partitions and heals of an executor.
type fakeLinks struct{ calls []string }

func (f *fakeLinks) Cut(string) error     { return nil }
func (f *fakeLinks) Restore(string) error { return nil }
func (f *fakeLinks) Partition(groups [][]string) error {
	f.calls = append(f.calls, fmt.Sprint("partition ", groups))
	return nil
}
func (f *fakeLinks) Heal() { f.calls = append(f.calls, "heal") }

// TestExecutorPartition: the partition's steps cut the links between its
// groups and heal them, with the testnet's events (node ""), and the heal
// still happens after the load ended.
func TestExecutorPartition(t *testing.T) {
	p := &manifest.Partition{Split: "50/50", Groups: [][]string{{"a", "b"}, {"c", "d"}}, Power: []int64{2, 2}, Duration: 50 * time.Millisecond}
	var events []string
	lk := &fakeLinks{}
	x := &executor{steps: partitionSteps(p), tn: testnet.New(nil, nil), links: lk,
		events: func(e results.Event) { events = append(events, e.Node+"|"+e.Kind+"|"+e.Detail) }}
	x.start(context.Background(), time.Now(), nil)
	time.Sleep(10 * time.Millisecond) // begun, not healed: the load ends now
	if err := x.wait(NewPrinter(nil)); err != nil {
		t.Fatal(err)
	}
	d := "partition 50/50 power 2/2, down 50ms: a b | c d"
	want := []string{"|perturb-begin|" + d, "|cut|p2p links between the groups cut", "|restore|p2p links between the groups healed", "|perturb-end|" + d}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	if got := strings.Join(lk.calls, "; "); got != "partition [[a b] [c d]]; heal" {
		t.Errorf("links: %s", got)
	}
}

// TestExecutorFailedBegin: a begin step that fails (a pause of a node
// that does not run) is an error, and its end step is not run.
func TestExecutorFailedBegin(t *testing.T) {
	tn := testnet.New([]cometbft.Home{{Name: "validator03"}}, nil)
	var events []string
	x := &executor{steps: schedule([]manifest.Perturbation{{Node: "validator03", Action: manifest.ActionPause, Down: time.Millisecond, Count: 1}}),
		tn: tn, events: func(e results.Event) { events = append(events, e.Kind+" "+e.Detail) }}
	x.start(context.Background(), time.Now(), nil)
	time.Sleep(100 * time.Millisecond) // both steps are due at once
	err := x.wait(NewPrinter(nil))
	if err == nil || !strings.Contains(err.Error(), "not running") || strings.Contains(err.Error(), "end pause") {
		t.Errorf("error %v, want the begin's 'not running' only", err)
	}
	if want := []string{"perturb-begin pause 1/1, down 1ms"}; strings.Join(events, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", events, want)
	}
}
