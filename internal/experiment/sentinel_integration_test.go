package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
)

// sentinelManifest is the default testnet with the sentinel in front of
// the target, a greedy client at 1,600 tx/s (over the testnet's capacity
// under -race) and a small one at 20 tx/s, for 12 s. The sentinel's rate limit is off, so
// that the greedy client meets the fair queue and the pacing (its queue
// fills: -32002), not the token bucket.
const sentinelManifest = `[load]
duration = "12s"
drain_timeout = "40s"

[[load.client]]
name = "greedy"
connections = 4
rate = 400

[[load.client]]
name = "small"
rate = 20

[sentinel]
rate = 0
client_queue = 300
`

// TestSentinelRun runs the sentinel in the lab: a greedy client floods it
// while a small one sends 20 tx/s. The small client has every transaction
// committed; every transaction of either is committed or refused with the
// sentinel's reason — none missing; the refusals are their own category;
// run.json records the sentinel and the clients; metrics.csv holds the
// sentinel's series; the report has the Clients section.
func TestSentinelRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	f := experimenttest.Fetcher(t)
	res, dir := runText(t, f, "sentinel.toml", sentinelManifest)
	if res.Run.Status != results.StatusComplete {
		t.Errorf("status %s, errors %v", res.Run.Status, res.Run.Errors)
	}
	s := res.Summary
	mt := s.Metrics
	t.Logf("sent %v, committed %v, refused %v (%v), rejected %v, missing %v", mt["sent_txs"], mt["committed_txs"], mt["refused_txs"], s.Refused, mt["rejected_txs"], mt["missing_txs"])
	// On a busy machine the generator may fall behind its schedule and
	// drop sends it could not make in time (unsent, never sent).
	if mt["expected_txs"] != 4*400*12+20*12 || mt["sent_txs"]+mt["unsent_txs"] != mt["expected_txs"] {
		t.Errorf("expected %v, sent %v, unsent %v", mt["expected_txs"], mt["sent_txs"], mt["unsent_txs"])
	}
	if mt["missing_txs"] != 0 || mt["committed_txs"]+mt["refused_txs"]+mt["rejected_txs"] != mt["sent_txs"] {
		t.Errorf("not every transaction accounted: %v", mt)
	}
	for why := range s.Rejected {
		t.Errorf("rejected by the node through the sentinel: %q", why)
	}
	if len(s.Clients) != 2 {
		t.Fatalf("%d clients in the summary, want 2", len(s.Clients))
	}
	greedy, small := s.Clients[0], s.Clients[1]
	for _, c := range s.Clients {
		t.Logf("%s: sent %d, committed %d, refused %d, rejected %d, missing %d, block p99 %v ms", c.Name, c.Sent, c.Committed, c.Refused, c.Rejected, c.Missing, deref(c.BlockP99))
	}
	if small.Name != "small" || small.Sent+small.Unsent != 240 || small.Sent < 200 || small.Committed != small.Sent {
		t.Errorf("the small client lost service under the flood: %+v", small)
	}
	if greedy.Refused == 0 || greedy.Refused != int64(mt["refused_txs"]) {
		t.Errorf("the greedy client was not (alone) refused: %+v, refused in all %v", greedy, mt["refused_txs"])
	}
	for why := range greedy.Reasons {
		if !strings.Contains(why, "client queue full") && !strings.Contains(why, "global buffer full") {
			t.Errorf("greedy refused for %q, not a sentinel queue limit", why)
		}
	}
	if res.Run.Sentinel == nil || len(res.Run.Load.Clients) != 2 || !strings.Contains(res.Run.Endpoint, res.Run.Sentinel.Addr) {
		t.Errorf("run.json: sentinel %+v, clients %+v, endpoint %s", res.Run.Sentinel, res.Run.Load.Clients, res.Run.Endpoint)
	}
	metrics, err := results.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	forwarded := 0.0
	for _, row := range metrics {
		if row.Node == "sentinel" && row.Name == "sentinel_forwarded_total" {
			forwarded = max(forwarded, row.Value)
		}
	}
	if forwarded < mt["committed_txs"] {
		t.Errorf("metrics.csv: the sentinel forwarded %v, fewer than the %v committed", forwarded, mt["committed_txs"])
	}
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Clients", "| greedy |", "| small |", "Refusals by the sentinel"} {
		if !bytes.Contains(report, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
