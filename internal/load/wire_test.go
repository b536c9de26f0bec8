package load

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/payload"
)

func TestAppendRequest(t *testing.T) {
	tx := []byte("a=0a0b\x00\xff binary")
	got := appendRequest(nil, 18446744073709551615, tx)
	var req struct {
		JSONRPC string `json:"jsonrpc"`
		ID      uint64 `json:"id"`
		Method  string `json:"method"`
		Params  struct {
			Tx string `json:"tx"`
		} `json:"params"`
	}
	if err := json.Unmarshal(got, &req); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	raw, err := base64.StdEncoding.DecodeString(req.Params.Tx)
	if err != nil || !bytes.Equal(raw, tx) || req.ID != 18446744073709551615 ||
		req.Method != "broadcast_tx_async" || req.JSONRPC != "2.0" {
		t.Errorf("request %s decodes to %+v", got, req)
	}
	if len(got) > requestLen(len(tx)) {
		t.Errorf("request of %d bytes is longer than requestLen %d", len(got), requestLen(len(tx)))
	}
	buf := make([]byte, 0, requestLen(1024))
	tx = make([]byte, 1024)
	if n := testing.AllocsPerRun(100, func() { buf = appendRequest(buf[:0], 123456, tx) }); n != 0 {
		t.Errorf("appendRequest allocates %v times", n)
	}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		ok      bool
		id      uint64
		code    int64
		message string
		hash    string
		noID    bool
	}{
		{"accepted", `{"jsonrpc":"2.0","id":7,"result":{"code":0,"data":"","log":"","codespace":"","hash":"9F86D0"}}`,
			true, 7, 0, "", "9F86D0", false},
		{"mempool full", `{"jsonrpc":"2.0","id":12,"error":{"code":-32603,"message":"Internal error","data":"mempool is full: number of txs 5000 (max: 5000)"}}`,
			false, 12, -32603, "Internal error: mempool is full: number of txs 5000 (max: 5000)", "", false},
		{"checktx rejected", `{"jsonrpc":"2.0","id":3,"result":{"code":1,"data":"","log":"invalid tx format","codespace":"","hash":"AB"}}`,
			false, 3, 1, "invalid tx format", "AB", false},
		{"escaped strings", `{"id":1,"error":{"code":-32600,"message":"bad \"req\"","data":"tab\there \u00e9"}}`,
			false, 1, -32600, "bad \"req\": tab\there é", "", false},
		{"error data not a string", `{"id":1,"error":{"code":-1,"message":"m","data":{"x":[1,2]}}}`,
			false, 1, -1, `m: {"x":[1,2]}`, "", false},
		{"error data null", `{"id":1,"error":{"code":-1,"message":"m","data":null}}`,
			false, 1, -1, "m", "", false},
		{"whitespace and member order", " {\n \"result\" : { \"hash\" : \"H\" , \"code\" : 0 } ,\t\"id\" : 99 }\n",
			true, 99, 0, "", "H", false},
		{"unknown members skipped", `{"x":[{"a":[true,false,null,-1.5e3]},"s"],"id":5,"result":{"extra":{"deep":{}},"code":0,"hash":"H","gas":[]}}`,
			true, 5, 0, "", "H", false},
		{"id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			false, 0, -32700, "Parse error", "", true},
		{"id a string", `{"id":"7","result":{"code":0}}`, true, 0, 0, "", "", true},
		{"id a fraction", `{"id":7.5,"result":{"code":0}}`, true, 0, 0, "", "", true},
		{"id negative", `{"id":-7,"result":{"code":0}}`, true, 0, 0, "", "", true},
		{"result null", `{"id":4,"result":null}`, true, 4, 0, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseReply([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if r.ok() != tt.ok || r.hasID == tt.noID || (!tt.noID && r.id != tt.id) || r.code != tt.code ||
				r.messageText() != tt.message || r.hash.text() != tt.hash {
				t.Errorf("got ok=%v hasID=%v id=%d code=%d message=%q hash=%q", r.ok(), r.hasID, r.id, r.code,
					r.messageText(), r.hash.text())
			}
		})
	}
}

func TestParseReplyErrors(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `"s"`, `{`, `{"id"`, `{"id":`, `{"id":1`, `{"id":1,}`, `{"id":1}x`, `{"id":1 "x":2}`,
		`{"result":{"code":"0"}}`, `{"result":{"code":1.5}}`, `{"result":{"log":5}}`, `{"error":{"message":"x`,
		`{"id":tru}`, `{"a":"` + "\x01" + `"}`, `{id:1}`, `{"result":{"code":99999999999999999999}}`,
	} {
		if r, err := parseReply([]byte(in)); err == nil {
			t.Errorf("parseReply(%q) = %+v, want an error", in, r)
		}
	}
}

func TestParseReplyAllocs(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":7,"result":{"code":0,"data":"","log":"","codespace":"","hash":"9F86D0"}}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = parseReply(in) }); n != 0 {
		t.Errorf("parseReply allocates %v times", n)
	}
}

// oracle is how encoding/json reads the members parseReply reads.
type oracle struct {
	ID     *uint64 `json:"id"`
	Result *struct {
		Code int64  `json:"code"`
		Log  string `json:"log"`
		Hash string `json:"hash"`
	} `json:"result"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

// FuzzParseReply checks that parseReply never panics and, for replies made
// by encoding/json, reads what encoding/json reads.
func FuzzParseReply(f *testing.F) {
	f.Add(uint64(7), false, int64(0), "", "9F86D0", "", "")
	f.Add(uint64(12), true, int64(-32603), "", "", "Internal error", "mempool is full: \"x\"\n")
	f.Add(uint64(0), false, int64(5), "log \u2028 é \x7f", "", "", "")
	f.Fuzz(func(t *testing.T, id uint64, isErr bool, code int64, log, hash, message, data string) {
		var in []byte
		if isErr {
			in, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
				"error": map[string]any{"code": code, "message": message, "data": data}})
		} else {
			in, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
				"result": map[string]any{"code": code, "data": data, "log": log, "codespace": "", "hash": hash}})
		}
		var want oracle
		if err := json.Unmarshal(in, &want); err != nil {
			t.Fatal(err)
		}
		r, err := parseReply(in)
		if err != nil {
			t.Fatalf("parseReply(%s): %v", in, err)
		}
		if !r.hasID || r.id != *want.ID {
			t.Errorf("id %d, want %d", r.id, *want.ID)
		}
		if isErr {
			w := want.Error
			msg := w.Message
			if w.Data != "" {
				msg = strings.TrimPrefix(msg+": "+w.Data, ": ")
			}
			if r.ok() || r.code != w.Code || r.messageText() != msg {
				t.Errorf("%s: got code %d message %q", in, r.code, r.messageText())
			}
		} else {
			w := want.Result
			if r.ok() != (w.Code == 0) || r.code != w.Code || r.messageText() != w.Log || r.hash.text() != w.Hash {
				t.Errorf("%s: got code %d log %q hash %q", in, r.code, r.messageText(), r.hash.text())
			}
		}
		// Any prefix or mangling of a valid reply must not panic.
		for i := range in {
			_, _ = parseReply(in[:i])
		}
	})
}

func BenchmarkParseReply(b *testing.B) {
	in := []byte(`{"jsonrpc":"2.0","id":123456,"result":{"code":0,"data":"","log":"","codespace":"","hash":"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"}}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := parseReply(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseReplyJSON is the encoding/json alternative, for comparison.
func BenchmarkParseReplyJSON(b *testing.B) {
	in := []byte(`{"jsonrpc":"2.0","id":123456,"result":{"code":0,"data":"","log":"","codespace":"","hash":"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"}}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var o oracle
		if err := json.Unmarshal(in, &o); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRequestBuilder(t *testing.T) {
	enc, err := payload.NewEncoder(3, 400, 1024, [16]byte{9})
	if err != nil {
		t.Fatal(err)
	}
	var rb requestBuilder
	at := time.Unix(1700000000, 0)
	check := func(seq uint64, tx []byte) {
		t.Helper()
		if got, want := rb.append(nil, seq, tx), appendRequest(nil, seq, tx); !bytes.Equal(got, want) {
			t.Fatalf("seq %d (%d bytes):\n got %s\nwant %s", seq, len(tx), got, want)
		}
	}
	// Payloads whose header and trailer widths change (seq 127 → 128, …).
	for seq := uint64(0); seq < 20000; seq += 1 + seq/50 {
		check(seq, enc.Encode(seq%3, seq, at.Add(time.Duration(seq)*123456789)))
	}
	// Arbitrary bytes, changing anywhere, and changing lengths.
	rnd := rand.New(rand.NewPCG(1, 2))
	tx := make([]byte, 100)
	for i := range 2000 {
		if i%100 == 0 {
			tx = make([]byte, rnd.IntN(300))
		}
		for range rnd.IntN(4) {
			if len(tx) > 0 {
				tx[rnd.IntN(len(tx))] = byte(rnd.Uint32())
			}
		}
		check(uint64(i), tx)
	}
}

// FuzzRequestBuilder checks that a request built after another equals one
// built from scratch.
func FuzzRequestBuilder(f *testing.F) {
	f.Add([]byte("a=00000000"), []byte("a=00010000"))
	f.Add(bytes.Repeat([]byte{'0'}, 100), append(bytes.Repeat([]byte{'0'}, 99), '1'))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var rb requestBuilder
		rb.append(nil, 1, a)
		if got, want := rb.append(nil, 2, b), appendRequest(nil, 2, b); !bytes.Equal(got, want) {
			t.Fatalf("after %q: got %s, want %s", a, got, want)
		}
	})
}

// TestSyncRequest: a sync builder writes broadcast_tx_sync around the
// same id and transaction as the async one.
func TestSyncRequest(t *testing.T) {
	tx := []byte("a transaction")
	async := (&requestBuilder{}).append(nil, 7, tx)
	sync := (&requestBuilder{sync: true}).append(nil, 7, tx)
	if want := bytes.Replace(async, []byte("broadcast_tx_async"), []byte("broadcast_tx_sync"), 1); !bytes.Equal(sync, want) || bytes.Equal(sync, async) {
		t.Errorf("sync request %s, want %s", sync, want)
	}
	if len(sync) > requestLen(len(tx)) {
		t.Errorf("sync request of %d bytes, longer than requestLen's %d", len(sync), requestLen(len(tx)))
	}
}
