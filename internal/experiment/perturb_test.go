package experiment

import (
	"bytes"
	"context"
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
		for _, s := range schedule(r.Perturbations) {
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
	go func() { done <- x.wait(newPrinter(&out)) }()
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

// TestExecutorFailedBegin: a begin step that fails (a pause of a node
// that does not run) is an error, and its end step is not run.
func TestExecutorFailedBegin(t *testing.T) {
	tn := testnet.New([]cometbft.Home{{Name: "validator03"}}, nil)
	var events []string
	x := &executor{steps: schedule([]manifest.Perturbation{{Node: "validator03", Action: manifest.ActionPause, Down: time.Millisecond, Count: 1}}),
		tn: tn, events: func(e results.Event) { events = append(events, e.Kind+" "+e.Detail) }}
	x.start(context.Background(), time.Now(), nil)
	time.Sleep(100 * time.Millisecond) // both steps are due at once
	err := x.wait(newPrinter(nil))
	if err == nil || !strings.Contains(err.Error(), "not running") || strings.Contains(err.Error(), "end pause") {
		t.Errorf("error %v, want the begin's 'not running' only", err)
	}
	if want := []string{"perturb-begin pause 1/1, down 1ms"}; strings.Join(events, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", events, want)
	}
}
