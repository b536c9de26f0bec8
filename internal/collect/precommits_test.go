package collect

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// TestWalkPrecommits walks a chain of three validators whose commits hold
// known votes: AA commits 250 ms after the block time, BB is absent at
// even heights (named through /validators, asked only then) and nil at odd
// ones, CC commits 1 s late; names come from the map, case-insensitively.
func TestWalkPrecommits(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	chain := &fakeChain{t0: t0, blocks: make([][][]byte, 6), vals: []string{"AA", "BB", "CC"}}
	chain.votes = func(h int64) string {
		ts := func(d time.Duration) string { return chain.time(h - 1).Add(d).Format(time.RFC3339Nano) }
		bb := `{"block_id_flag":3,"validator_address":"BB","timestamp":"` + ts(0) + `"}`
		if (h-1)%2 == 0 {
			bb = `{"block_id_flag":1,"validator_address":"","timestamp":"0001-01-01T00:00:00Z"}`
		}
		return fmt.Sprintf(`[{"block_id_flag":2,"validator_address":"AA","timestamp":%q},%s,{"block_id_flag":2,"validator_address":"CC","timestamp":%q}]`,
			ts(250*time.Millisecond), bb, ts(time.Second))
	}
	var calls atomic.Int64
	srv := httptest.NewServer(countCalls(chain, &calls))
	defer srv.Close()
	dir := t.TempDir()
	txw, bw := createWalkFiles(t, dir)
	pw, err := results.Create(filepath.Join(dir, results.PrecommitFile), results.PrecommitHeader)
	if err != nil {
		t.Fatal(err)
	}
	cfg := WalkConfig{Client: rpc.New(srv.URL), From: 2, To: 4, Workers: 2, Precommits: pw,
		Names: map[string]string{"AA": "v1", "BB": "v2", "CC": "v3"}}
	if _, err := Walk(context.Background(), cfg, txw, bw); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadPrecommits(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []results.Precommit
	for h := int64(2); h <= 4; h++ {
		bb := results.Precommit{Height: h, Validator: "BB", Node: "v2", Flag: "nil"}
		if h%2 == 0 {
			bb.Flag = "absent"
		}
		want = append(want, results.Precommit{Height: h, Validator: "AA", Node: "v1", Flag: "commit", OffsetMs: 250}, bb,
			results.Precommit{Height: h, Validator: "CC", Node: "v3", Flag: "commit", OffsetMs: 1000})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	// Blocks 2..5 fetched, plus /validators for the two commits (of 2 and 4) with an absent vote.
	if n := calls.Load(); n != 4+2 {
		t.Errorf("%d requests, want 6", n)
	}
}

// countCalls counts the requests h serves.
func countCalls(h http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}
