package load

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestRunSendsHeader checks that Config.Header goes on every websocket
// handshake (a gateway tells load clients apart by it).
func TestRunSendsHeader(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Client-Key"))
		mu.Unlock()
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, msg, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(msg, &req) != nil {
				return
			}
			reply := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"code":0,"hash":"00"}}`
			if ws.WriteMessage(websocket.TextMessage, []byte(reply)) != nil {
				return
			}
		}
	}))
	defer srv.Close()
	l := newLogs(t)
	cfg := Config{Endpoint: "ws" + strings.TrimPrefix(srv.URL, "http") + "/websocket", Connections: 2, Rate: 10,
		Size: 256, Duration: 100 * time.Millisecond, Header: http.Header{"X-Client-Key": {"small-1"}}}
	g := l.generator(t, cfg)
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] != "small-1" || keys[1] != "small-1" {
		t.Fatalf("handshake keys %q, want small-1 on both connections", keys)
	}
}
