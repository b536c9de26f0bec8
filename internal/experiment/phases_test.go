package experiment

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestCollectorWriteFailure: a collector's file that cannot be written
// (here adoption.csv on a full device) fails the run, naming the file, and
// is not a "complete" run with a truncated file.
func TestCollectorWriteFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	rd, err := createRunDir(t.TempDir(), results.Run{ID: "r", Status: results.StatusRunning}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", rd.path(results.AdoptionFile)); err != nil {
		t.Fatal(err)
	}
	p := &pipeline{rd: rd, out: NewPrinter(nil), logger: beginRun("", nil, nil).logger}
	c, err := p.startCollectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c.stop(p)
	if got := rd.status(); got != results.StatusFailed {
		t.Errorf("status %q, want %q", got, results.StatusFailed)
	}
	run := rd.snapshot()
	if len(run.Errors) == 0 || !strings.Contains(run.Errors[0], rd.path(results.AdoptionFile)) ||
		!strings.Contains(run.Errors[0], "no space left") {
		t.Errorf("errors %q, want one naming %s", run.Errors, rd.path(results.AdoptionFile))
	}
}

// TestStatusOf: the status follows from the kinds of the problems.
func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		kinds []problemKind
		want  string
	}{
		{nil, results.StatusComplete},
		{[]problemKind{problemNotDrained}, results.StatusPartial},
		{[]problemKind{problemInterrupted, problemNodeDied}, results.StatusPartial},
		{[]problemKind{problemNotDrained, problemCollector}, results.StatusFailed},
		{[]problemKind{problemRun}, results.StatusFailed},
	} {
		var ps []problem
		for _, k := range tc.kinds {
			ps = append(ps, problem{kind: k, err: os.ErrInvalid})
		}
		if got := statusOf(ps); got != tc.want {
			t.Errorf("statusOf(%v) = %q, want %q", tc.kinds, got, tc.want)
		}
	}
}
