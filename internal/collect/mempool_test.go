package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cometlab/cometlab/internal/results"
)

// fakeCommits is a node that commits heights 1…last, one every interval, each
// commit setting its mempool to 7 × height transactions (of 100 bytes),
// and answers num_unconfirmed_txs after delay.
type fakeCommits struct {
	last     int64
	interval time.Duration
	delay    time.Duration

	mu     sync.Mutex
	height int64
}

func (f *fakeCommits) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/websocket" {
		up := websocket.Upgrader{}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil { // the subscribe request
			return
		}
		c.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
		for h := int64(1); h <= f.last; h++ {
			time.Sleep(f.interval)
			f.mu.Lock()
			f.height = h
			f.mu.Unlock()
			ev := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"data":{"value":{"header":{"height":"%d"}}}}}`, h)
			if err := c.WriteMessage(websocket.TextMessage, []byte(ev)); err != nil {
				return
			}
		}
		<-r.Context().Done()
		return
	}
	f.mu.Lock()
	n := 7 * f.height
	f.mu.Unlock()
	time.Sleep(f.delay)
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1,
		"result": map[string]any{"n_txs": fmt.Sprint(n), "total": fmt.Sprint(n), "total_bytes": fmt.Sprint(100 * n)}})
}

// sampleFake follows the fake chain with the mempool sampler until every
// height is committed, and returns mempool.csv's rows and the stats.
func sampleFake(t *testing.T, f *fakeCommits) ([]results.MempoolSample, []MempoolStats) {
	t.Helper()
	srv := httptest.NewServer(f)
	defer srv.Close()
	dir := t.TempDir()
	adoption, err := results.Create(filepath.Join(dir, results.AdoptionFile), results.AdoptionHeader)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := results.Create(filepath.Join(dir, results.MempoolFile), results.MempoolHeader)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHeights([]Endpoint{{Name: "n0", Addr: srv.URL}}, adoption, nil)
	h.SampleMempools(mp, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for h.Latest("n0") < f.last && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(f.delay + 50*time.Millisecond) // the last answer
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	adoption.Close()
	mp.Close()
	rows, err := results.ReadMempool(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rows, h.MempoolStats()
}

// TestSampleMempools checks one row per committed height with the mempool
// as it was right after that commit.
func TestSampleMempools(t *testing.T) {
	rows, stats := sampleFake(t, &fakeCommits{last: 10, interval: 60 * time.Millisecond})
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10 (one per height): %+v", len(rows), rows)
	}
	slices.SortFunc(rows, func(a, b results.MempoolSample) int { return int(a.Height - b.Height) })
	for i, r := range rows {
		h := int64(i + 1)
		if r.Height != h || r.Node != "n0" || r.Txs != 7*h || r.Bytes != 700*h || r.At == 0 {
			t.Errorf("row %d = %+v, want height %d, 7×%d txs", i, r, h, h)
		}
	}
	if s := stats[0]; s.Rows != 10 || s.Skipped != 0 || s.Failures != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestSampleMempoolsBounded checks that a slow node gets one question at a
// time: commits heard meanwhile are skipped, not queued.
func TestSampleMempoolsBounded(t *testing.T) {
	rows, stats := sampleFake(t, &fakeCommits{last: 12, interval: 20 * time.Millisecond, delay: 90 * time.Millisecond})
	s := stats[0]
	if s.Skipped == 0 || s.Rows+s.Skipped+s.Failures != 12 || int64(len(rows)) != s.Rows {
		t.Errorf("stats %+v, %d rows; want skips and every commit counted once", s, len(rows))
	}
}
