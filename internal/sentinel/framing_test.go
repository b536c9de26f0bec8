package sentinel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// fakeNode answers the few JSON-RPC calls the sentinel makes, the way a
// CometBFT node shapes them. It is a unit-test double for the framing
// tests only; the integration test runs real nodes.
type fakeNode struct {
	*httptest.Server
	broadcasts atomic.Int64
	seen       sync.Map     // tx → true
	full       atomic.Int64 // answer this many more broadcasts "mempool is full"
	mempool    atomic.Int64 // what num_unconfirmed_txs says
}

// received reports whether the node got tx.
func (n *fakeNode) received(tx string) bool { _, ok := n.seen.Load(tx); return ok }

func newFakeNode(t *testing.T) *fakeNode {
	n := &fakeNode{}
	n.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":-1,"result":{"path":%q}}`, r.URL.Path)
			return
		}
		var req Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		result := `{}`
		switch req.Method {
		case "broadcast_tx_sync", "broadcast_tx_async", "broadcast_tx_commit":
			n.broadcasts.Add(1)
			if n.full.Add(-1) >= 0 {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"Internal error",`+
					`"data":"mempool is full: number of txs 5000 (max: 5000), total txs bytes 5120000 (max: 1073741824)"}}`+"\n", req.ID)
				return
			}
			tx, _ := TxParam(req.Params)
			n.seen.Store(string(tx), true)
			if string(tx) == "reject" {
				result = `{"code":1,"log":"bad tx","hash":"00"}`
				break
			}
			h := sha256.Sum256(tx)
			result = `{"code":0,"data":"","log":"","codespace":"","hash":"` + strings.ToUpper(hex.EncodeToString(h[:])) + `"}`
		case "num_unconfirmed_txs":
			result = fmt.Sprintf(`{"n_txs":"%d","total":"%[1]d","total_bytes":"0"}`, n.mempool.Load())
		case "status":
			result = `{"sync_info":{"latest_block_height":"7"}}`
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}))
	t.Cleanup(n.Close)
	return n
}

// startSentinel runs a sentinel with opts (Upstream and Listen filled in)
// until the test ends.
func startSentinel(t *testing.T, upstream string, opts Options) *Sentinel {
	s, _ := stoppableSentinel(t, upstream, opts)
	return s
}

// stoppableSentinel is startSentinel with a stop function that waits for
// Run to return (the test's end calls it too).
func stoppableSentinel(t *testing.T, upstream string, opts Options) (*Sentinel, func()) {
	t.Helper()
	return runLogged(t, upstream, opts, nil)
}

// runLogged runs a sentinel that logs to logger until the returned
// function (or the test's end) stops it.
func runLogged(t *testing.T, upstream string, opts Options, logger *slog.Logger) (*Sentinel, func()) {
	t.Helper()
	opts.Upstream, opts.Listen = upstream, "127.0.0.1:0"
	s, err := New(opts, logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return s, stop
}

// do sends req and returns the reply's status, header and body.
func do(t *testing.T, req *http.Request, err error) (int, http.Header, string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func post(t *testing.T, url, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	return do(t, req, err)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	st, _, b := do(t, req, err)
	return st, b
}

func get1(t *testing.T, url string) string { _, b := get(t, url); return b }

func post1(t *testing.T, url, body string) string { _, _, b := post(t, url, body); return b }

func txReq(id int, method, tx string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"tx":%q}}`, id, method,
		base64.StdEncoding.EncodeToString([]byte(tx)))
}

func TestHTTPFraming(t *testing.T) {
	node := newFakeNode(t)
	opts := DefaultOptions()
	opts.MaxRate = 1000
	s := startSentinel(t, node.URL, opts)
	url := "http://" + s.Addr()
	hash := func(tx string) string {
		h := sha256.Sum256([]byte(tx))
		return strings.ToUpper(hex.EncodeToString(h[:]))
	}
	for _, tc := range []struct {
		name, body string
		status     int
		want       []string // substrings of the reply, in order
	}{
		{"async: acknowledged with the tx hash", txReq(1, "broadcast_tx_async", "a"), 200,
			[]string{`"id":1`, `"code":0`, hash("a")}},
		{"sync: the node's own reply", txReq(2, "broadcast_tx_sync", "b"), 200,
			[]string{`"id":2`, `"code":0`, hash("b")}},
		{"sync: the node's rejection", txReq(3, "broadcast_tx_sync", "reject"), 200,
			[]string{`"id":3`, `"code":1`, `bad tx`}},
		{"read-only proxied with the client's id", `{"jsonrpc":"2.0","id":"s","method":"status"}`, 200,
			[]string{`"id":"s"`, `latest_block_height`}},
		{"unsafe refused", `{"jsonrpc":"2.0","id":4,"method":"unsafe_flush_mempool"}`, 403,
			[]string{`"id":4`, `-32601`}},
		{"unknown refused", `{"jsonrpc":"2.0","id":5,"method":"nope"}`, 403, []string{`-32601`}},
		{"subscribe is websocket-only", `{"jsonrpc":"2.0","id":5,"method":"subscribe","params":{"query":"x"}}`, 403, []string{`-32601`}},
		{"batch: every answer, in order", `[` + txReq(6, "broadcast_tx_async", "c") + `,{"jsonrpc":"2.0","id":7,"method":"status"},{"jsonrpc":"2.0","id":8,"method":"dial_seeds"}]`, 200,
			[]string{`[{`, `"id":6`, `"id":7`, `"id":8`, `-32601`, `}]`}},
		{"batch: notifications get no answer", `[{"jsonrpc":"2.0","method":"status"},` + txReq(9, "broadcast_tx_async", "d") + `]`, 200,
			[]string{`[{"jsonrpc":"2.0","id":9`}},
		{"batch too large", "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"status"},`, 10) + `{"jsonrpc":"2.0","id":1,"method":"status"}]`, 400,
			[]string{`-32600`, `exceeds maximum`}},
		{"empty batch", `[]`, 400, []string{`-32700`}},
		{"not JSON", `{`, 400, []string{`-32700`}},
		{"bad tx", `{"jsonrpc":"2.0","id":10,"method":"broadcast_tx_sync","params":{"tx":"!!"}}`, 200, []string{`-32602`}},
		{"too large a body", `{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_async","params":{"tx":"` + strings.Repeat("A", 1_000_000) + `"}}`, 413, []string{`-32600`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, url, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			rest := body
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("reply lacks %q (in order): %s", w, body)
				}
				rest = rest[i+len(w):]
			}
		})
	}
	t.Run("GET", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			status int
			want   string
		}{
			{"/status", 200, `"path":"/status"`},
			{"/broadcast_tx_async?tx=0x6869", 200, hash("hi")},
			{`/broadcast_tx_sync?tx="hi"`, 200, hash("hi")},
			{"/broadcast_tx_sync?tx=zz", 400, `-32602`},
			{"/dial_seeds?seeds=x", 403, `-32601`},
		} {
			status, body := get(t, url+tc.path)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("GET %s: %d %s, want %d with %q", tc.path, status, body, tc.status, tc.want)
			}
		}
	})
}

func TestRefusals(t *testing.T) {
	node := newFakeNode(t)
	opts := DefaultOptions()
	opts.ClientHeader = "X-Client-Key"
	opts.MaxRate = 0.001 // the forwarder takes one tx, then waits
	opts.ClientQueue, opts.Buffer = 3, 5
	opts.Overrides = map[string]Limits{"slow": {Rate: 1, Burst: 1, MaxConns: 1, Weight: 1}}
	opts.DrainTimeout = 10 * time.Millisecond
	s := startSentinel(t, node.URL, opts)
	url := "http://" + s.Addr()
	send := func(key string, i int) (int, http.Header, string) {
		req, err := http.NewRequest("POST", url, strings.NewReader(txReq(i, "broadcast_tx_async", fmt.Sprint(key, i))))
		if err == nil {
			req.Header.Set("X-Client-Key", key)
		}
		return do(t, req, err)
	}
	expect := func(status int, h http.Header, body string, code int, msg string) {
		t.Helper()
		if status != 429 || h.Get("Retry-After") == "" || !strings.Contains(body, fmt.Sprintf(`"code":%d`, code)) || !strings.Contains(body, msg) {
			t.Fatalf("got %d Retry-After %q %s, want 429 with Retry-After and code %d %q", status, h.Get("Retry-After"), body, code, msg)
		}
	}
	t.Run("client rate", func(t *testing.T) {
		if st, _, b := send("slow", 1); st != 200 {
			t.Fatalf("first: %d %s", st, b)
		}
		st, h, b := send("slow", 2)
		expect(st, h, b, CodeClientRate, "client rate limit exceeded")
	})
	t.Run("client queue full", func(t *testing.T) {
		var st int
		var h http.Header
		var b string
		for i := range 6 {
			if st, h, b = send("greedy", i); st != 200 {
				break
			}
		}
		expect(st, h, b, CodeClientQueue, "client queue full")
	})
	t.Run("global buffer full", func(t *testing.T) {
		var st int
		var h http.Header
		var b string
		for i := range 4 {
			if st, h, b = send(fmt.Sprint("c", i), i); st != 200 {
				break
			}
		}
		expect(st, h, b, CodeGlobalBuffer, "global buffer full")
	})
	t.Run("num_unconfirmed_txs counts the queue", func(t *testing.T) {
		// The node's mempool is empty; the sentinel holds the txs it
		// admitted above and has not forwarded.
		for _, body := range []string{get1(t, url+"/num_unconfirmed_txs"),
			post1(t, url, `{"jsonrpc":"2.0","id":1,"method":"num_unconfirmed_txs"}`)} {
			if strings.Contains(body, `"total":"0"`) || !strings.Contains(body, `"total":"`) {
				t.Fatalf("reply %s: want the queued txs in total", body)
			}
		}
	})
	t.Run("connections", func(t *testing.T) {
		hdr := http.Header{"X-Client-Key": {"slow"}}
		ws, _, err := websocket.DefaultDialer.Dial("ws://"+s.Addr()+"/websocket", hdr)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		_, resp, err := websocket.DefaultDialer.Dial("ws://"+s.Addr()+"/websocket", hdr)
		if err == nil || resp == nil || resp.StatusCode != 429 {
			t.Fatalf("second connection: %v %v, want HTTP 429", err, resp)
		}
		b, _ := io.ReadAll(resp.Body)
		if !bytes.Contains(b, []byte(fmt.Sprint(CodeConnections))) {
			t.Fatalf("body %s", b)
		}
	})
}

func TestWebsocketFraming(t *testing.T) {
	node := newFakeNode(t)
	opts := DefaultOptions()
	opts.MaxRate = 1000
	s := startSentinel(t, node.URL, opts)
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+s.Addr()+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	frames := []string{
		txReq(1, "broadcast_tx_async", "x"),
		txReq(2, "broadcast_tx_sync", "y"),
		`{"jsonrpc":"2.0","id":3,"method":"unsafe_dial_peers"}`,
		`[` + txReq(4, "broadcast_tx_async", "z") + `,{"jsonrpc":"2.0","id":5,"method":"num_unconfirmed_txs"}]`,
		`not json`,
	}
	for _, f := range frames {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	for range frames {
		_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		m := string(msg)
		switch {
		case strings.HasPrefix(m, "["):
			got["batch"] = m
		case strings.Contains(m, `"id":1,`):
			got["async"] = m
		case strings.Contains(m, `"id":2,`):
			got["sync"] = m
		case strings.Contains(m, `"id":3,`):
			got["unsafe"] = m
		case strings.Contains(m, `"id":null`):
			got["parse"] = m
		}
	}
	for k, want := range map[string]string{"async": `"code":0`, "sync": `"code":0`, "unsafe": `-32601`,
		"batch": `"total":"`, "parse": `-32700`} {
		if !strings.Contains(got[k], want) {
			t.Errorf("%s: %q lacks %q", k, got[k], want)
		}
	}
	if len(got) != len(frames) {
		t.Errorf("got %d kinds of reply, want %d: %v", len(got), len(frames), got)
	}
	// A frame over max_body_bytes closes the connection, as the node does.
	big := txReq(9, "broadcast_tx_async", strings.Repeat("A", 1_000_000))
	_ = ws.WriteMessage(websocket.TextMessage, []byte(big))
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := ws.ReadMessage(); err == nil {
		t.Fatal("an oversized frame was accepted")
	}
}

// TestNoQueue: with pacing and fairness off, a tx within the bucket goes to
// the node at once and the client gets the node's reply; over it, 429.
func TestNoQueue(t *testing.T) {
	node := newFakeNode(t)
	opts := DefaultOptions()
	opts.NoQueue = true
	opts.Limits.Rate, opts.Limits.Burst = 1, 1
	s := startSentinel(t, node.URL, opts)
	url := "http://" + s.Addr()
	if st, _, b := post(t, url, txReq(1, "broadcast_tx_async", "now")); st != 200 || !strings.Contains(b, `"code":0`) || !node.received("now") {
		t.Fatalf("first: %d %s (node received it: %v)", st, b, node.received("now"))
	}
	if st, h, b := post(t, url, txReq(2, "broadcast_tx_async", "later")); st != 429 || h.Get("Retry-After") == "" || !strings.Contains(b, "-32001") || node.received("later") {
		t.Fatalf("second: %d %s", st, b)
	}
}
