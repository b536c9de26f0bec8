package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// fakeMempool is a node RPC whose mempool holds left[i] transactions on
// the i-th num_unconfirmed_txs call (the last value after that); after
// failAfter calls (when > 0) it answers with an HTTP error.
type fakeMempool struct {
	left      []int64
	failAfter int64
	calls     atomic.Int64
}

func (f *fakeMempool) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	if f.failAfter > 0 && n > f.failAfter {
		http.Error(w, "stopped", http.StatusServiceUnavailable)
		return
	}
	k := f.left[min(int(n-1), len(f.left)-1)]
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"n_txs":"%d","total":"%d","total_bytes":"0"}}`, k, k)
}

func TestWatchDrain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		left    []int64
		fail    int64
		loadEnd bool
		drained bool
		nilWant bool
	}{
		{"empties after a few polls", []int64{500, 200, 0}, 0, true, true, false},
		{"the nodes stop before the mempool empties", []int64{500, 400, 300}, 3, true, false, false},
		{"the load never ends", []int64{0}, 0, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&fakeMempool{left: tc.left, failAfter: tc.fail})
			defer srv.Close()
			dir := t.TempDir()
			run := results.Run{ID: "x", Status: results.StatusRunning, Nodes: []results.Node{{Name: "a", Mode: "validator", RPC: srv.URL}}}
			if tc.loadEnd {
				run.LoadEnd = time.Now()
			}
			if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
				t.Fatal(err)
			}
			timeout := 3 * time.Second
			if tc.nilWant {
				timeout = 700 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			d := watchDrain(ctx, dir, 10*time.Second)
			switch {
			case tc.nilWant:
				if d != nil {
					t.Errorf("got %+v, want nil", d)
				}
			case d == nil:
				t.Fatal("no drain")
			case d.Drained != tc.drained || d.Seconds < 0 || d.Seconds > 3:
				t.Errorf("got %+v, want drained %v", d, tc.drained)
			}
		})
	}
}
