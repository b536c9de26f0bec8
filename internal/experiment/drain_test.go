package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
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

// TestDrainMempools: the one drain waits until every mempool that is up is
// empty, gives up after its timeout saying what was left, and names the
// nodes it did not wait for because they are down.
func TestDrainMempools(t *testing.T) {
	for _, tc := range []struct {
		name        string
		left        []int64
		fail        int64
		down        func(string) (bool, string)
		drained     bool
		leftHas     string
		skippedHas  string
		atLeastPoll int64
	}{
		{name: "empties after a few polls", left: []int64{500, 200, 0}, drained: true, atLeastPoll: 3},
		{name: "never empties", left: []int64{500, 400, 300}, leftHas: "a: 300 txs"},
		{name: "the node stops answering", left: []int64{500}, fail: 2, leftHas: "a: "},
		{name: "a down node is not waited for", left: []int64{7}, drained: true, skippedHas: "b exited at 3.0 s",
			down: func(n string) (bool, string) { return n == "b", "exited at 3.0 s" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeMempool{left: tc.left, failAfter: tc.fail}
			srv := httptest.NewServer(f)
			defer srv.Close()
			nodes := []collect.Endpoint{{Name: "a", Addr: srv.URL}}
			if tc.down != nil {
				nodes = []collect.Endpoint{{Name: "b", Addr: srv.URL}}
				f.left = []int64{0}
			}
			d := drainMempools(context.Background(), nodes, tc.down, time.Second, func(string, ...any) {})
			if d.Drained != tc.drained || !strings.Contains(d.Left, tc.leftHas) || !strings.Contains(d.Skipped, tc.skippedHas) {
				t.Errorf("got %+v, want drained %v, left with %q, skipped with %q", d, tc.drained, tc.leftHas, tc.skippedHas)
			}
			if !tc.drained && d.Left == "" {
				t.Errorf("gave up with nothing left: %+v", d)
			}
			if f.calls.Load() < tc.atLeastPoll {
				t.Errorf("%d polls, want at least %d", f.calls.Load(), tc.atLeastPoll)
			}
		})
	}
}
