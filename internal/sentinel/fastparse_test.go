package sentinel

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// FuzzParseFast checks the one-pass reader against encoding/json: what
// parseFast accepts, encoding/json reads to the same id, method and params,
// and the tx txFast decodes is the one encoding/json and base64 decode.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_async","params":{"tx":"aGk="}}`,
		`{"method":"broadcast_tx_sync","params":["aGk="],"id":"a-1"}`,
		` { "id" : null , "method" : "status" } `, `{}`, `{"id":-0,"method":"x"}`, `{"id":01}`,
		`{"id":1,"id":2}`, `{"params":{"tx":"a\u0041=="}}`, `{"params":{"tx":"!"}}`, `{"method":"a",}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, ok := parseFast(b)
		if !ok {
			return
		}
		var slow Request
		if err := json.Unmarshal(b, &slow); err != nil {
			t.Fatalf("parseFast accepted %q, encoding/json refuses it: %v", b, err)
		}
		slow.ID = normID(slow.ID)
		if !bytes.Equal(r.ID, slow.ID) || r.Method != slow.Method || !bytes.Equal(r.Params, slow.Params) {
			t.Fatalf("%q: parseFast %q %q %q, encoding/json %q %q %q", b, r.ID, r.Method, r.Params, slow.ID, slow.Method, slow.Params)
		}
		if r.Params == nil {
			return
		}
		tx, fast, err := txFast(r.Params)
		if !fast {
			t.Fatalf("%q: txFast refuses params parseFast accepted", r.Params)
		}
		var named struct{ Tx string }
		var pos []string
		s := ""
		if json.Unmarshal(r.Params, &named) == nil && r.Params[0] == '{' {
			s = named.Tx
		} else if json.Unmarshal(r.Params, &pos) == nil && len(pos) == 1 {
			s = pos[0]
		} else {
			t.Fatalf("%q: encoding/json cannot read the params", r.Params)
		}
		want, werr := base64.StdEncoding.DecodeString(s)
		if (err == nil) != (werr == nil) || err == nil && !bytes.Equal(tx, want) {
			t.Fatalf("%q: txFast %q (%v), base64 %q (%v)", r.Params, tx, err, want, werr)
		}
	})
}
