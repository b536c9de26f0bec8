package sentinel_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/sentinel"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// upTestnet starts the default 4-validator testnet for the test and returns
// the first validator's RPC address.
func upTestnet(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	testnettest.LockForTest(t)
	man := manifest.Default()
	m, err := man.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	cache, err := cometbft.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "testnet")
	st, err := experiment.Up(t.Context(), experiment.UpOptions{Manifest: m, Dir: dir,
		Env: experiment.Env{Fetcher: &cometbft.Fetcher{CacheDir: cache, Progress: os.Stderr}, Out: io.Discard}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := experiment.Down(dir, 10*time.Second, io.Discard); err != nil {
			t.Error(err)
		}
		if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
			t.Errorf("node processes left behind: %v", left)
		}
	})
	return st.Nodes[0].RPC
}

// runSentinel runs a sentinel until stop is called, which waits for Run;
// its warnings are logged with the test's.
func runSentinel(t *testing.T, o sentinel.Options) (s *sentinel.Sentinel, stop func()) {
	t.Helper()
	logs, err := os.Create(filepath.Join(t.TempDir(), "sentinel.log"))
	if err != nil {
		t.Fatal(err)
	}
	s, stop = sentinel.RunLogged(t, o.Upstream, o, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t.Cleanup(func() {
		stop()
		if b, err := os.ReadFile(logs.Name()); err == nil && len(b) > 0 {
			t.Logf("sentinel warnings (first 2 KB):\n%.2048s", b)
		}
		logs.Close()
	})
	return s, stop
}

// TestSentinelFlood runs a greedy load client at 1,200 tx/s (more than the
// nodes commit under -race) and a small one at 20 tx/s through the sentinel, both
// as cometlab load runs with read-back: the small client has every
// transaction committed, and every transaction of either is committed or
// refused with the sentinel's reason — none missing or unanswered. With
// -update it records the pacing observations into testdata/pace_trace.csv.
func TestSentinelFlood(t *testing.T) {
	node := upTestnet(t)
	o := sentinel.DefaultOptions()
	o.Upstream, o.Listen = node, "127.0.0.1:0"
	o.Limits.Rate, o.Limits.ReadRate = 0, 0 // fairness and pacing alone; read-back unthrottled
	o.ClientHeader = experiment.ClientKeyHeader
	// A short client queue: the greedy client (about 1.3× what the nodes
	// commit under -race) meets it within seconds. A heavier flood starves
	// the -race test process itself on a busy 2-core machine: the sentinel
	// then reads so slowly that the clients' writes time out.
	o.ClientQueue = 300
	o.Trace = filepath.Join(t.TempDir(), "pace_trace.csv")
	s, stop := runSentinel(t, o)
	ep := "ws://" + s.Addr() + "/websocket"

	man := manifest.Default()
	base, err := man.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	type client struct {
		key   string
		conns int
		rate  float64
		res   experiment.Result
		err   error
		out   bytes.Buffer
	}
	clients := []*client{{key: "greedy", conns: 4, rate: 300}, {key: "small", conns: 1, rate: 20}}
	var wg sync.WaitGroup
	for _, c := range clients {
		m := base
		m.Load.Connections, m.Load.Rate, m.Load.Duration, m.Load.DrainTimeout = c.conns, c.rate, 15*time.Second, 30*time.Second
		wg.Go(func() {
			c.res, c.err = experiment.Load(context.Background(), experiment.LoadOptions{Endpoint: ep, Manifest: m,
				Dir: filepath.Join(t.TempDir(), c.key), Readback: true, ClientKey: c.key,
				Env: experiment.Env{Out: &c.out, Version: "test", Hard: context.Background(), Logger: clientLog(t, c.key)}})
		})
	}
	wg.Wait()
	stop()
	for _, c := range clients {
		if c.err != nil {
			t.Fatalf("%s: %v\n%s", c.key, c.err, c.out.String())
		}
		m := c.res.Summary.Metrics
		sent, committed, refused := m["sent_txs"], m["committed_txs"], m["refused_txs"]
		t.Logf("%s: sent %.0f, committed %.0f, refused %.0f, missing %.0f, unanswered %.0f, refusals %v",
			c.key, sent, committed, refused, m["missing_txs"], m["unanswered_txs"], c.res.Summary.Refused)
		if sent == 0 || m["missing_txs"] != 0 || m["unanswered_txs"] != 0 || m["rejected_txs"] != 0 || committed+refused != sent {
			t.Errorf("%s: not every transaction accounted: %v", c.key, m)
		}
		for why := range c.res.Summary.Refused {
			if !strings.Contains(why, "client queue full") && !strings.Contains(why, "global buffer full") {
				t.Errorf("%s: refused for %q, not a sentinel limit", c.key, why)
			}
		}
	}
	if small := clients[1].res.Summary.Metrics; small["committed_txs"] != small["sent_txs"] {
		t.Errorf("the small client lost service under the flood: %v", small)
	}
	if greedy := clients[0].res.Summary.Metrics; greedy["refused_txs"] == 0 {
		t.Errorf("the greedy client was never refused: the flood did not flood (%v)", greedy)
	}
	if resultstest.Updating() {
		b, err := os.ReadFile(o.Trace)
		if err != nil {
			t.Fatal(err)
		}
		resultstest.WriteFile(t, filepath.Join("testdata", "pace_trace.csv"), b)
	}
}

// TestSentinelSpoolRestart accepts transactions into a sentinel that
// forwards slowly, stops it, starts another on the same spool and checks
// that every accepted transaction is committed.
func TestSentinelSpoolRestart(t *testing.T) {
	node := upTestnet(t)
	spool := t.TempDir()
	o := sentinel.DefaultOptions()
	o.Upstream, o.Listen, o.Spool = node, "127.0.0.1:0", spool
	o.MaxRate, o.DrainTimeout = 20, 10*time.Millisecond
	nc := rpc.New(node)
	from, err := nc.Height(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s, stop := runSentinel(t, o)
	const n = 300
	want := map[string]bool{}
	run := time.Now().UnixNano()
	for i := range n {
		tx := fmt.Sprintf("spool-%d-%d=%d", run, i, i)
		want[tx] = true
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"broadcast_tx_async","params":{"tx":%q}}`, i,
			base64.StdEncoding.EncodeToString([]byte(tx)))
		resp, err := http.Post("http://"+s.Addr(), "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"code":0`)) {
			t.Fatalf("tx %d: %d %s", i, resp.StatusCode, b)
		}
	}
	stop()
	o.MaxRate = 2000
	_, stop2 := runSentinel(t, o)
	defer stop2()
	deadline := time.Now().Add(60 * time.Second)
	for h := from + 1; len(want) > 0 && time.Now().Before(deadline); {
		blk, err := nc.Block(t.Context(), h)
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for _, tx := range blk.Txs {
			delete(want, string(tx))
		}
		h++
	}
	if len(want) > 0 {
		t.Fatalf("%d of %d accepted transactions never committed after the restart", len(want), n)
	}
}

// clientLog returns a logger of the load client's warnings, printed by the
// test when it fails.
func clientLog(t *testing.T, key string) *slog.Logger {
	f, err := os.Create(filepath.Join(t.TempDir(), key+".log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(f.Name()); err == nil && len(b) > 0 {
				t.Logf("load client %s warnings (first 4 KB):\n%.4096s", key, b)
			}
		}
		f.Close()
	})
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
