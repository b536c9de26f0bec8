package sentinel

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestMempoolFullRequeued: a tx the node answers "mempool is full" is queued
// again and forwarded until the node takes it — the sync caller gets the
// node's acceptance, the async tx reaches the node — and each such answer is
// counted for the pacer and in sentinel_node_errors_total{kind="mempool_full"},
// never as a rejection.
func TestMempoolFullRequeued(t *testing.T) {
	node := newFakeNode(t)
	node.full.Store(3)
	o := DefaultOptions()
	o.MaxRate = 1000
	s := startSentinel(t, node.URL, o)
	url := "http://" + s.Addr()
	status, body := postBody(t, url, txReq(1, "broadcast_tx_sync", "s1"))
	if status != 200 || !strings.Contains(body, `"code":0`) {
		t.Fatalf("sync through a full mempool: %d %s", status, body)
	}
	if got := node.broadcasts.Load(); got != 4 {
		t.Errorf("the node saw %d broadcasts, want 4 (3 full, then taken)", got)
	}
	node.full.Store(2)
	if status, body := postBody(t, url, txReq(2, "broadcast_tx_async", "a1")); status != 200 {
		t.Fatalf("async: %d %s", status, body)
	}
	for deadline := time.Now().Add(5 * time.Second); !node.received("a1") || s.forwarded.Load() < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the async tx never reached the node")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if full, fwd := s.full.Load(), s.forwarded.Load(); full != 5 || fwd != 2 {
		t.Errorf("counted %d full, %d taken; want 5 and 2", full, fwd)
	}
	if got := counterValue(t, s.m.nodeErr.WithLabelValues("mempool_full")); got != 5 {
		t.Errorf("sentinel_node_errors_total{kind=mempool_full} %g, want 5", got)
	}
	if got := counterValue(t, s.m.nodeErr.WithLabelValues("rejected")); got != 0 {
		t.Errorf("sentinel_node_errors_total{kind=rejected} %g, want 0", got)
	}
}

// counterValue reads a counter.
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// postBody POSTs body to url and returns the reply's status and body.
func postBody(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	status, _, b := do(t, req, err)
	return status, b
}

// TestGate: while the node's mempool (as polled) plus what the sentinel
// has handed it since is at the pacing target, nothing is forwarded; the
// next poll that shows room lets the tx through.
func TestGate(t *testing.T) {
	node := newFakeNode(t)
	node.mempool.Store(150)
	o := DefaultOptions()
	o.Pace.Target, o.PollInterval = 100, 10*time.Millisecond
	s := startSentinel(t, node.URL, o)
	time.Sleep(50 * time.Millisecond) // polled
	if status, body := postBody(t, "http://"+s.Addr(), txReq(1, "broadcast_tx_async", "g1")); status != 200 {
		t.Fatalf("async: %d %s", status, body)
	}
	time.Sleep(200 * time.Millisecond)
	if node.received("g1") {
		t.Fatal("forwarded while the mempool was over the target")
	}
	node.mempool.Store(0)
	for deadline := time.Now().Add(5 * time.Second); !node.received("g1"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never forwarded once the mempool had room")
		}
	}
}
