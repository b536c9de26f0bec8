package collect

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cometlab/cometlab/internal/results"
)

// fakeHashes is a node that commits heights 1…last: header H carries
// block H−1's hash "B<H−1>" and app hash "A<H−1>"; /status says block
// last is "B<last>", /abci_info that its app is at last with appHash.
type fakeHashes struct {
	last    int64
	appHash []byte
}

func (f *fakeHashes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/websocket" {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
		c.WriteJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
		for h := int64(1); h <= f.last; h++ {
			ev := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"data":{"value":{"header":{"height":"%d","last_block_id":{"hash":"B%d"},"app_hash":"A%d"}}}}}`, h, h-1, h-1)
			if err := c.WriteMessage(websocket.TextMessage, []byte(ev)); err != nil {
				return
			}
		}
		<-r.Context().Done()
		return
	}
	var req struct {
		Method string `json:"method"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	var result any
	switch req.Method {
	case "status":
		result = map[string]any{"sync_info": map[string]any{"latest_block_height": fmt.Sprint(f.last), "latest_block_hash": fmt.Sprintf("B%d", f.last)}}
	case "abci_info":
		result = map[string]any{"response": map[string]any{"last_block_height": fmt.Sprint(f.last), "last_block_app_hash": base64.StdEncoding.EncodeToString(f.appHash)}}
	}
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "result": result})
}

// TestRecordHashes checks hashes.csv against what the fake node said: a
// header row per height after the first, then the status and app rows
// the end asks for.
func TestRecordHashes(t *testing.T) {
	f := &fakeHashes{last: 4, appHash: []byte{0xab, 0x01}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	dir := t.TempDir()
	adoption, err := results.Create(filepath.Join(dir, results.AdoptionFile), results.AdoptionHeader)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := results.Create(filepath.Join(dir, results.HashesFile), results.HashesHeader)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHeights([]Endpoint{{Name: "n0", Addr: srv.URL}}, adoption, nil)
	h.RecordHashes(hw)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); h.Latest("n0") < f.last && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	adoption.Close()
	hw.Close()
	got, err := results.ReadHashes(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []results.HashRow
	for hh := int64(1); hh < f.last; hh++ {
		want = append(want, results.HashRow{Height: hh, Node: "n0", BlockHash: fmt.Sprintf("B%d", hh), AppHash: fmt.Sprintf("A%d", hh), Source: results.HashFromHeader})
	}
	want = append(want, results.HashRow{Height: 4, Node: "n0", BlockHash: "B4", Source: results.HashFromStatus},
		results.HashRow{Height: 4, Node: "n0", AppHash: "AB01", Source: results.HashFromApp})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hashes.csv\n got %+v\nwant %+v", got, want)
	}
}
