package experiment

import (
	"sync"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestUpdateInOrder: concurrent updates write run.json in the order of
// their changes, so the file ends with all of them.
func TestUpdateInOrder(t *testing.T) {
	dir := t.TempDir()
	rd, err := createRunDir(dir, results.Run{ID: "r"})
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
