package sentinel

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"testing"
)

func TestParseRequests(t *testing.T) {
	for _, tc := range []struct {
		in      string
		n       int
		batch   bool
		wantErr bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"status"}`, 1, false, false},
		{` [{"id":1,"method":"a"},{"method":"b"}]`, 2, true, false},
		{`[]`, 0, true, true},
		{`[{},{},{}]`, 0, true, true}, // over the batch limit of 2
		{`{"id":1,"method":3}`, 0, false, true},
		{`nope`, 0, false, true},
	} {
		reqs, batch, err := ParseRequests([]byte(tc.in), 2)
		if (err != nil) != tc.wantErr || batch != tc.batch || len(reqs) != tc.n {
			t.Errorf("%s: %d requests, batch %v, err %v", tc.in, len(reqs), batch, err)
		}
	}
	reqs, _, _ := ParseRequests([]byte(`[{"id":null,"method":"a"},{"id":"x","method":"b"}]`), 0)
	if reqs[0].ID != nil || string(reqs[1].ID) != `"x"` {
		t.Errorf("ids %q %q: want null as no id", reqs[0].ID, reqs[1].ID)
	}
}

func TestTxParam(t *testing.T) {
	for in, want := range map[string]string{
		`{"tx":"aGk="}`: "hi", `["aGk="]`: "hi", `{"tx":""}`: "",
	} {
		got, err := TxParam(json.RawMessage(in))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v", in, got, err)
		}
	}
	for _, in := range []string{``, `{}`, `{"tx":"!"}`, `[1]`, `{"tx":5}`} {
		if _, err := TxParam(json.RawMessage(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	for in, want := range map[string]string{`0x6869`: "hi", `"hi"`: "hi"} {
		got, err := URITx(url.Values{"tx": {in}})
		if err != nil || string(got) != want {
			t.Errorf("uri %s: %q %v", in, got, err)
		}
	}
	for _, in := range []string{``, `0xz`, `hi`, `"hi`} {
		if _, err := URITx(url.Values{"tx": {in}}); err == nil {
			t.Errorf("uri %q: no error", in)
		}
	}
}

// FuzzParseRequests checks the request parser against encoding/json: what
// it accepts is valid JSON, a batch within the limit, each request's id
// and params raw JSON; a broadcast's tx, when readable, round-trips through
// base64; and a reply built for any parsed id is valid JSON.
func FuzzParseRequests(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_async","params":{"tx":"aGk="}}`,
		`[{"jsonrpc":"2.0","id":"a","method":"status"},{"method":"broadcast_tx_sync","params":["aGk="]}]`,
		`{"id":null,"method":"x","params":[]}`, `[]`, `[{}]`, `{`, `"str"`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		reqs, batch, err := ParseRequests(b, 10)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if batch && (len(reqs) == 0 || len(reqs) > 10) || !batch && len(reqs) != 1 {
			t.Fatalf("batch %v with %d requests", batch, len(reqs))
		}
		for _, r := range reqs {
			if r.ID != nil && !json.Valid(r.ID) || r.Params != nil && !json.Valid(r.Params) {
				t.Fatalf("raw id %q or params %q not JSON", r.ID, r.Params)
			}
			if out := appendResult(nil, r.ID, json.RawMessage(`{}`)); !json.Valid(out) {
				t.Fatalf("reply %q not JSON", out)
			}
			if out := appendError(nil, r.ID, RPCError{Code: 1, Message: r.Method}); !json.Valid(out) {
				t.Fatalf("error reply %q not JSON", out)
			}
			if tx, err := TxParam(r.Params); err == nil {
				again, err := TxParam(json.RawMessage(`{"tx":"` + base64.StdEncoding.EncodeToString(tx) + `"}`))
				if err != nil || string(again) != string(tx) {
					t.Fatalf("tx %q does not round-trip", tx)
				}
			}
		}
	})
}
