package collect

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// fakeChain serves /block for heights 1..len(blocks) as CometBFT does.
type fakeChain struct {
	blocks [][][]byte // txs per height (index 0 = height 1)
	t0     time.Time
	// votes, if set, gives the last commit's signatures of block h (JSON
	// array), and /validators serves vals.
	votes func(h int64) string
	vals  []string
	// resultsFor, if set, serves /block_results: the result (JSON) of
	// each transaction of a block, in its order.
	resultsFor func(tx []byte) string
	// served counts /block_results requests by height.
	served map[int64]int
}

func (f *fakeChain) time(h int64) time.Time { return f.t0.Add(time.Duration(h) * time.Second) }

func (f *fakeChain) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Method string `json:"method"`
		Params struct {
			Height string `json:"height"`
		} `json:"params"`
	}
	json.Unmarshal(body, &req)
	if req.Method == "validators" {
		f.serveValidators(w)
		return
	}
	var h int64
	fmt.Sscan(req.Params.Height, &h)
	if req.Method == "block_results" && f.resultsFor != nil && h >= 1 && h <= int64(len(f.blocks)) {
		if f.served == nil {
			f.served = map[int64]int{}
		}
		f.served[h]++
		var rs []string
		for _, tx := range f.blocks[h-1] {
			rs = append(rs, f.resultsFor(tx))
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"height":"%d","txs_results":[%s]}}`, h, strings.Join(rs, ","))
		return
	}
	if h < 1 || h > int64(len(f.blocks)) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":"height %d must be less than or equal to the current blockchain height %d"}}`, h, len(f.blocks))
		return
	}
	var txs []string
	for _, tx := range f.blocks[h-1] {
		txs = append(txs, `"`+base64.StdEncoding.EncodeToString(tx)+`"`)
	}
	sigs := "[]"
	if f.votes != nil {
		sigs = f.votes(h)
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"block":{"header":{"height":"%d","time":%q,"proposer_address":"AB"},"data":{"txs":[%s]},"last_commit":{"round":%d,"signatures":%s}}}}`,
		h, f.time(h).Format(time.RFC3339Nano), strings.Join(txs, ","), h%2, sigs)
}

func (f *fakeChain) serveValidators(w http.ResponseWriter) {
	var vs []string
	for _, a := range f.vals {
		vs = append(vs, fmt.Sprintf(`{"address":%q}`, a))
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"validators":[%s],"total":"%d"}}`, strings.Join(vs, ","), len(vs))
}

// TestWalk checks the walk against a chain with known answers: latency uses
// the time of block H+1, other runs' and non-payload txs are skipped, a
// repeated (conn, seq) is flagged duplicate, rounds come from H+1.
func TestWalk(t *testing.T) {
	id := [16]byte{1, 2, 3}
	other := [16]byte{9}
	enc, _ := payload.NewEncoder(2, 100, 256, id)
	encOther, _ := payload.NewEncoder(1, 100, 256, other)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sent := t0.Add(500 * time.Millisecond)
	cp := func(b []byte) []byte { return append([]byte(nil), b...) }
	chain := &fakeChain{t0: t0, blocks: [][][]byte{
		{}, // 1
		{cp(enc.Encode(0, 0, sent)), []byte("k=v"), cp(encOther.Encode(0, 0, sent))}, // 2
		{cp(enc.Encode(1, 0, sent)), cp(enc.Encode(0, 1, sent.Add(time.Second)))},    // 3
		{cp(enc.Encode(0, 0, sent))}, // 4: duplicate
		{},                           // 5
	}}
	srv := httptest.NewServer(chain)
	defer srv.Close()
	dir := t.TempDir()
	txw, bw := createWalkFiles(t, dir)
	st, err := Walk(context.Background(), WalkConfig{Client: rpc.New(srv.URL), From: 2, To: 4, RunID: id, Workers: 3}, txw, bw)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []*results.Writer{txw, bw} {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if st.Blocks != 3 || st.Txs != 6 || st.RunTxs != 4 || st.Duplicates != 1 || st.OtherTxs != 2 {
		t.Errorf("stats %+v", st)
	}
	txs, err := results.ReadTxs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		conn      int
		seq       uint64
		height    int64
		latencyMS int64
		dup       bool
	}{
		{0, 0, 2, 2500, false}, // committed at time(3) = t0+3s, sent t0+0.5s
		{1, 0, 3, 3500, false},
		{0, 1, 3, 2500, false},
		{0, 0, 4, 4500, true},
	}
	if len(txs) != len(want) {
		t.Fatalf("%d txs, want %d", len(txs), len(want))
	}
	for i, w := range want {
		g := txs[i]
		if g.Conn != w.conn || g.Seq != w.seq || g.Height != w.height || g.Latency()/1e6 != w.latencyMS || g.Duplicate != w.dup {
			t.Errorf("tx %d = %+v (latency %d ms), want %+v", i, g, g.Latency()/1e6, w)
		}
	}
	blocks, err := results.ReadBlocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0].Height != 2 || blocks[0].RunTxs != 1 || blocks[0].Txs != 3 || blocks[0].Round != 1 || blocks[1].Round != 0 {
		t.Errorf("blocks %+v", blocks)
	}
	if blocks[0].CommitTime != chain.time(3).UnixNano() {
		t.Errorf("block 2 commit time %d, want time of block 3", blocks[0].CommitTime)
	}
}

// TestWalkByHash matches the user's own transactions by SHA-256 against the
// send log: their connection, sequence and send time come from the send, a
// payload or an unknown tx is not the run's, and a tx committed again is a
// duplicate.
func TestWalkByHash(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	enc, _ := payload.NewEncoder(1, 100, 256, [16]byte{1})
	chain := &fakeChain{t0: t0, blocks: [][][]byte{
		{[]byte("a=1"), []byte("x=9")},                                // 1
		{[]byte("b=2"), append([]byte(nil), enc.Encode(0, 0, t0)...)}, // 2
		{[]byte("a=1")}, // 3: again
		{},              // 4
	}}
	srv := httptest.NewServer(chain)
	defer srv.Close()
	sentAt := t0.Add(200 * time.Millisecond).UnixNano()
	sent := []results.Sent{
		{Conn: 0, Seq: 0, Actual: sentAt, Hash: hashOf("a=1")},
		{Conn: 1, Seq: 0, Actual: sentAt + 1e8, Hash: hashOf("b=2")},
		{Conn: 0, Seq: 1, Actual: 0, Err: "not connected", Hash: ""},
		{Conn: 1, Seq: 1, Actual: sentAt, Hash: hashOf("a=1")}, // the same tx sent again: the first send keeps it
	}
	ix, err := HashIndex(sent)
	if err != nil || len(ix) != 2 {
		t.Fatalf("HashIndex = %v, %v", ix, err)
	}
	dir := t.TempDir()
	txw, bw := createWalkFiles(t, dir)
	st, err := Walk(context.Background(), WalkConfig{Client: rpc.New(srv.URL), From: 1, To: 3, RunID: [16]byte{1}, ByHash: ix}, txw, bw)
	if err != nil {
		t.Fatal(err)
	}
	txw.Close()
	bw.Close()
	if st.RunTxs != 3 || st.Duplicates != 1 || st.OtherTxs != 2 {
		t.Errorf("stats %+v", st)
	}
	txs, err := results.ReadTxs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.Tx{
		{Conn: 0, Seq: 0, Sent: sentAt, Height: 1, Index: 0, BlockTime: chain.time(1).UnixNano(), CommitTime: chain.time(2).UnixNano()},
		{Conn: 1, Seq: 0, Sent: sentAt + 1e8, Height: 2, Index: 0, BlockTime: chain.time(2).UnixNano(), CommitTime: chain.time(3).UnixNano()},
		{Conn: 0, Seq: 0, Sent: sentAt, Height: 3, Index: 0, BlockTime: chain.time(3).UnixNano(), CommitTime: chain.time(4).UnixNano(), Duplicate: true},
	}
	if len(txs) != len(want) {
		t.Fatalf("txs %+v", txs)
	}
	for i := range want {
		if txs[i] != want[i] {
			t.Errorf("tx %d = %+v, want %+v", i, txs[i], want[i])
		}
	}
	if _, err := HashIndex([]results.Sent{{Actual: 1, Hash: "XYZ"}}); err == nil || !strings.Contains(err.Error(), "not 64 hex digits") {
		t.Errorf("bad hash: %v", err)
	}
}

// TestWalkResults checks tx_results.csv against a chain whose app fails
// some transactions: one row per run transaction with its own block's
// result (not its neighbour's), failures counted and their logs kept; a
// walk in steps reads the results of a step's last block when it writes
// it, and a node whose results do not match its block is an error.
func TestWalkResults(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	chain := &fakeChain{t0: t0, blocks: [][][]byte{
		{[]byte("ok1"), []byte("other")},  // 1
		{[]byte("other"), []byte("bad2")}, // 2
		{[]byte("ok3")},                   // 3
		{},                                // 4
	}, resultsFor: func(tx []byte) string {
		if bytes.HasPrefix(tx, []byte("bad")) {
			return `{"code":5,"codespace":"sdk","gas_wanted":"100000","gas_used":"71234","log":"insufficient funds, spendable 1stake","events":[{"type":"tx"}]}`
		}
		return `{"code":0,"gas_wanted":"100000","gas_used":"` + fmt.Sprint(60000+len(tx)) + `","events":[]}`
	}}
	srv := httptest.NewServer(chain)
	defer srv.Close()
	var sent []results.Sent
	for i, tx := range []string{"ok1", "bad2", "ok3"} {
		sent = append(sent, results.Sent{Conn: i % 2, Seq: uint64(i / 2), Actual: t0.UnixNano(), Hash: hashOf(tx)})
	}
	ix, err := HashIndex(sent)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	txw, bw := createWalkFiles(t, dir)
	rw, err := results.Create(filepath.Join(dir, results.TxResultsFile), results.TxResultsHeader)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWalker(WalkConfig{Client: rpc.New(srv.URL), From: 1, ByHash: ix, Results: rw}, txw, bw)
	for _, to := range []int64{1, 3} { // height 2 is fetched by the first step, without its results
		if err := w.WalkTo(context.Background(), to); err != nil {
			t.Fatal(err)
		}
	}
	rw.Close()
	if st := w.Stats(); st.RunTxs != 3 || st.Failed != 1 {
		t.Errorf("stats %+v, want 3 run txs, 1 failed", st)
	}
	got, err := results.ReadTxResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.TxResult{
		{Conn: 0, Seq: 0, Height: 1, Index: 0, GasWanted: 100000, GasUsed: 60003},
		{Conn: 1, Seq: 0, Height: 2, Index: 1, Code: 5, Codespace: "sdk", GasWanted: 100000, GasUsed: 71234, Log: "insufficient funds, spendable 1stake"},
		{Conn: 0, Seq: 1, Height: 3, Index: 0, GasWanted: 100000, GasUsed: 60003},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tx_results\n got %+v\nwant %+v", got, want)
	}
	if chain.served[4] != 0 || chain.served[2] != 1 {
		t.Errorf("block_results served %v: want height 2 once (when written), never 4 (no run tx, and not yet written)", chain.served)
	}

	// A node whose /block_results holds one result for height 1's two
	// transactions.
	short := &fakeChain{t0: t0, blocks: chain.blocks}
	ssrv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"block_results"`) {
			fmt.Fprint(rw, `{"jsonrpc":"2.0","id":1,"result":{"txs_results":[{"code":0}]}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		short.ServeHTTP(rw, r)
	}))
	defer ssrv.Close()
	txw, bw = createWalkFiles(t, t.TempDir())
	rw2, _ := results.Create(filepath.Join(t.TempDir(), results.TxResultsFile), results.TxResultsHeader)
	_, err = Walk(context.Background(), WalkConfig{Client: rpc.New(ssrv.URL), From: 1, To: 3, ByHash: ix, Results: rw2}, txw, bw)
	if err == nil || !strings.Contains(err.Error(), "1 results for the block's 2 transactions") {
		t.Errorf("results short of the block: %v", err)
	}
}

func hashOf(tx string) string {
	sum := sha256.Sum256([]byte(tx))
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// TestWalkMissingBlock reports a height the node does not have.
func TestWalkMissingBlock(t *testing.T) {
	chain := &fakeChain{t0: time.Now(), blocks: [][][]byte{{}, {}}}
	srv := httptest.NewServer(chain)
	defer srv.Close()
	dir := t.TempDir()
	txw, bw := createWalkFiles(t, dir)
	defer txw.Close()
	defer bw.Close()
	_, err := Walk(context.Background(), WalkConfig{Client: rpc.New(srv.URL), From: 1, To: 2}, txw, bw)
	if err == nil || !strings.Contains(err.Error(), "block 3") {
		t.Errorf("want an error about block 3, got %v", err)
	}
}

// createWalkFiles creates the txs.csv and blocks.csv writers Walk fills.
func createWalkFiles(t *testing.T, dir string) (txw, bw *results.Writer) {
	t.Helper()
	txw, err := results.Create(filepath.Join(dir, results.TxsFile), results.TxsHeader)
	if err != nil {
		t.Fatal(err)
	}
	bw, err = results.Create(filepath.Join(dir, results.BlocksFile), results.BlocksHeader)
	if err != nil {
		t.Fatal(err)
	}
	return txw, bw
}

// TestWalkerSteps: a chain read in steps while it grows gives the rows of
// one walk over the whole range, byte for byte.
func TestWalkerSteps(t *testing.T) {
	id := [16]byte{4, 5}
	enc, _ := payload.NewEncoder(2, 100, 256, id)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cp := func(b []byte) []byte { return append([]byte(nil), b...) }
	var all [][][]byte
	for h := range 200 {
		var txs [][]byte
		for k := range h % 5 {
			txs = append(txs, cp(enc.Encode(uint64(k%2), uint64(h*10+k), t0.Add(time.Duration(h)*time.Second))))
		}
		if h%50 == 7 {
			txs = append(txs, cp(enc.Encode(0, 1, t0))) // a duplicate now and then
		}
		all = append(all, txs)
	}
	whole := t.TempDir()
	srv := httptest.NewServer(&fakeChain{t0: t0, blocks: all})
	defer srv.Close()
	txw, bw := createWalkFiles(t, whole)
	if _, err := Walk(context.Background(), WalkConfig{Client: rpc.New(srv.URL), From: 3, To: 190, RunID: id}, txw, bw); err != nil {
		t.Fatal(err)
	}
	txw.Close()
	bw.Close()

	growing := &fakeChain{t0: t0}
	gsrv := httptest.NewServer(growing)
	defer gsrv.Close()
	steps := t.TempDir()
	txw, bw = createWalkFiles(t, steps)
	w := NewWalker(WalkConfig{Client: rpc.New(gsrv.URL), From: 3, RunID: id, Workers: 2}, txw, bw)
	for _, top := range []int{3, 4, 4, 70, 71, 140, 191} {
		growing.blocks = all[:top]
		if err := w.WalkTo(context.Background(), int64(top-1)); err != nil {
			t.Fatalf("to %d: %v", top-1, err)
		}
		if w.Done() != max(int64(top-1), 2) {
			t.Fatalf("done %d after walking to %d", w.Done(), top-1)
		}
		want := int64(0) // nothing written yet
		if w.Done() >= 3 {
			want = growing.time(w.Done() + 1).UnixNano() // the commit time of Done: the next block's
		}
		if w.DoneAt() != want {
			t.Fatalf("done at %d after walking to %d, want %d", w.DoneAt(), top-1, want)
		}
	}
	txw.Close()
	bw.Close()
	for _, f := range []string{results.TxsFile, results.BlocksFile} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(steps, f))
		if len(a) < 100 || string(a) != string(b) {
			t.Errorf("%s read in steps differs from one walk (%d and %d bytes)", f, len(a), len(b))
		}
	}
}
