package experiment

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestUpdateInOrder: concurrent updates write run.json in the order of
// their changes, so the file ends with all of them.
func TestUpdateInOrder(t *testing.T) {
	dir := t.TempDir()
	rd, err := createRunDir(dir, results.Run{ID: "r"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := rd.update(func(r *results.Run) { r.LastHeight++ }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.LastHeight != n {
		t.Errorf("run.json: last height %d, want %d", got.LastHeight, n)
	}
}

// unwritable makes run.json unwritable, even for root: a directory (not
// empty) takes its place.
func unwritable(t *testing.T, rd *runDir) {
	t.Helper()
	p := rd.path(results.RunFile)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestRunJSONUnwritable: a change on the way that run.json cannot take is
// logged, with the file and the error, and kept for the next write; the
// end of the run that it cannot take fails the run.
func TestRunJSONUnwritable(t *testing.T) {
	var log bytes.Buffer
	rd, err := createRunDir(t.TempDir(), results.Run{ID: "r", Status: results.StatusRunning},
		slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	unwritable(t, rd)
	rd.set(func(r *results.Run) { r.LastHeight = 7 })
	rd.fail(problemNotDrained, "", errors.New("mempools not empty"))
	for _, want := range []string{"level=WARN", "run.json not written", rd.path(results.RunFile), "err="} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if n := strings.Count(log.String(), "\n"); n != 2 {
		t.Errorf("%d log lines, want 2 (one per failed write):\n%s", n, log.String())
	}

	res, err := finish(context.Background(), rd, NewPrinter(nil), nil, nil)
	if err == nil || !strings.Contains(err.Error(), "record the end of the run in run.json") {
		t.Fatalf("finish: error %v, want the failed write of run.json", err)
	}
	if res.Run.Status != results.StatusPartial || res.Run.LastHeight != 7 || len(res.Run.Errors) != 1 {
		t.Errorf("run in memory: %+v", res.Run)
	}

	// Once run.json can be written again, the next write carries every change.
	if err := os.RemoveAll(rd.path(results.RunFile)); err != nil {
		t.Fatal(err)
	}
	rd.set(func(*results.Run) {})
	got, err := results.ReadRun(rd.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != results.StatusPartial || got.LastHeight != 7 || len(got.Errors) != 1 {
		t.Errorf("run.json: %+v", got)
	}
}

func TestFinishSendOnlyUnwritable(t *testing.T) {
	rd, err := createRunDir(t.TempDir(), results.Run{ID: "r"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	unwritable(t, rd)
	loadErr := errors.New("load: refused")
	_, err = finishSendOnly(context.Background(), rd, NewPrinter(nil), loadErr)
	if !errors.Is(err, loadErr) || !strings.Contains(err.Error(), "record the end of the run") {
		t.Errorf("finishSendOnly: %v; want the load's error and the failed write", err)
	}
}
