package load

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
)

// fakeNode is an in-process websocket JSON-RPC endpoint that answers
// broadcast_tx_async like a CometBFT node, with knobs for misbehaviour.
type fakeNode struct {
	t   *testing.T
	srv *httptest.Server

	// Set before the first connection.
	errorFor  func(id uint64) bool // reply with "mempool is full" for these ids
	silent    bool                 // read but never reply
	dropAfter int                  // drop the first connection after this many requests (0: never)
	logPad    int                  // bytes of CheckTx log in each OK reply
	anyTx     bool                 // accept any tx (not only payloads), kept in raw

	mu    sync.Mutex
	conns int
	got   map[[2]uint64]int // (connection, seq) from the payload → times received
	bad   []string          // requests that did not decode
	raw   map[string]int    // with anyTx: tx → times received
}

func newFakeNode(t *testing.T, setup func(*fakeNode)) *fakeNode {
	f := &fakeNode{t: t, got: map[[2]uint64]int{}}
	if setup != nil {
		setup(f)
	}
	pad := strings.Repeat("x", f.logPad)
	up := websocket.Upgrader{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/websocket" {
			http.NotFound(w, r)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		f.mu.Lock()
		f.conns++
		first := f.conns == 1
		f.mu.Unlock()
		for n := 1; ; n++ {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			id, ok := f.record(msg)
			if first && n == f.dropAfter {
				return // the deferred Close drops the connection without a close frame
			}
			if f.silent || !ok {
				continue
			}
			reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"code":0,"data":"","log":"%s","codespace":"","hash":"%016X"}}`,
				id, pad, id)
			if f.errorFor != nil && f.errorFor(id) {
				reply = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"Internal error","data":"mempool is full: number of txs 5000 (max: 5000)"}}`, id)
			}
			if err := ws.WriteMessage(websocket.TextMessage, []byte(reply)); err != nil {
				return
			}
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// record decodes one request and counts its payload.
func (f *fakeNode) record(msg []byte) (uint64, bool) {
	var req struct {
		ID     uint64 `json:"id"`
		Method string `json:"method"`
		Params struct {
			Tx string `json:"tx"`
		} `json:"params"`
	}
	var h payload.Header
	err := json.Unmarshal(msg, &req)
	if f.anyTx && err == nil {
		tx, derr := base64.StdEncoding.DecodeString(req.Params.Tx)
		f.mu.Lock()
		defer f.mu.Unlock()
		if derr != nil || req.Method != "broadcast_tx_async" {
			f.bad = append(f.bad, fmt.Sprintf("%.100s: %v", msg, derr))
			return 0, false
		}
		if f.raw == nil {
			f.raw = map[string]int{}
		}
		f.raw[string(tx)]++
		return req.ID, true
	}
	if err == nil {
		var tx []byte
		if tx, err = base64.StdEncoding.DecodeString(req.Params.Tx); err == nil {
			h, err = payload.Decode(tx)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil || req.Method != "broadcast_tx_async" || h.Seq != req.ID {
		f.bad = append(f.bad, fmt.Sprintf("%.100s: %v", msg, err))
		return 0, false
	}
	f.got[[2]uint64{h.Connection, h.Seq}]++
	return req.ID, true
}

func (f *fakeNode) endpoint() string {
	return "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/websocket"
}

func (f *fakeNode) received() (map[[2]uint64]int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	got := make(map[[2]uint64]int, len(f.got))
	for k, v := range f.got {
		got[k] = v
	}
	return got, append([]string(nil), f.bad...)
}

// logs is a run directory with the generator's two logs.
type logs struct {
	dir            string
	sent, replies  *results.Writer
	sentRows       []results.Sent
	replyRows      []results.Reply
	sentBy         map[[2]uint64]results.Sent
	repliesBy      map[[2]uint64]results.Reply
	duplicateReply bool
}

func newLogs(t *testing.T) *logs {
	l := &logs{dir: t.TempDir()}
	var err error
	if l.sent, err = results.Create(filepath.Join(l.dir, results.SentFile), results.SentHeader); err != nil {
		t.Fatal(err)
	}
	if l.replies, err = results.Create(filepath.Join(l.dir, results.RepliesFile), results.RepliesHeader); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.sent.Close(); l.replies.Close() })
	return l
}

// generator returns a generator of cfg writing to the logs.
func (l *logs) generator(t *testing.T, cfg Config) *Generator {
	t.Helper()
	g, err := New(cfg, l.sent, l.replies, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// read closes the logs and reads them back, failing on any send logged
// twice.
func (l *logs) read(t *testing.T) {
	t.Helper()
	if err := l.sent.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.replies.Close(); err != nil {
		t.Fatal(err)
	}
	var err error
	if l.sentRows, err = results.ReadSent(l.dir); err != nil {
		t.Fatal(err)
	}
	if l.replyRows, err = results.ReadReplies(l.dir); err != nil {
		t.Fatal(err)
	}
	l.sentBy = map[[2]uint64]results.Sent{}
	for _, s := range l.sentRows {
		k := [2]uint64{uint64(s.Conn), s.Seq}
		if _, dup := l.sentBy[k]; dup {
			t.Errorf("send %v logged twice", k)
		}
		l.sentBy[k] = s
	}
	l.repliesBy = map[[2]uint64]results.Reply{}
	for _, r := range l.replyRows {
		k := [2]uint64{uint64(r.Conn), r.Seq}
		if _, dup := l.repliesBy[k]; dup {
			l.duplicateReply = true
		}
		l.repliesBy[k] = r
	}
}

// checkSchedule fails unless the sends logged are exactly seqs 0…perConn−1
// of each connection.
func (l *logs) checkSchedule(t *testing.T, conns int, perConn uint64) {
	t.Helper()
	if want := conns * int(perConn); len(l.sentRows) != want {
		t.Errorf("%d sends logged, want %d", len(l.sentRows), want)
	}
	for k := range conns {
		for n := range perConn {
			if _, ok := l.sentBy[[2]uint64{uint64(k), n}]; !ok {
				t.Errorf("send %d of connection %d not logged", n, k)
				return
			}
		}
	}
}

// checkNoLeak fails the test if goroutines started during it are still
// running shortly after it ends. Register it first, so that it runs after
// the other cleanups (servers closed, files closed).
func checkNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines before the test, %d after:\n%s", before, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// closedPort returns a local endpoint nothing listens on.
func closedPort(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/websocket"
	srv.Close()
	return url
}
