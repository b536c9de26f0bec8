package rpc

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseBlockRecorded(t *testing.T) {
	b, err := os.ReadFile("testdata/block_v0.40.0.json")
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ParseBlock(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"k1=v1", "k2=v2", "k3=v3"}
	if blk.Height != 3 || blk.TxCount != 3 || blk.TxBytes != 15 || blk.LastRound != 0 {
		t.Errorf("got height %d, %d txs, %d bytes, round %d", blk.Height, blk.TxCount, blk.TxBytes, blk.LastRound)
	}
	for i, w := range want {
		if string(blk.Txs[i]) != w {
			t.Errorf("tx %d = %q, want %q", i, blk.Txs[i], w)
		}
	}
	if got := blk.Time.Format(time.RFC3339Nano); got != "2026-11-21T08:35:24.793527205Z" {
		t.Errorf("time %s", got)
	}
	if blk.Proposer == "" {
		t.Error("no proposer")
	}
}

func TestParseBlockErrors(t *testing.T) {
	b, err := os.ReadFile("testdata/block_future_v0.40.0.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseBlock(b)
	var re *Error
	if !errors.As(err, &re) || !strings.Contains(re.Data, "must be less than or equal") {
		t.Errorf("want the node's error, got %v", err)
	}
	for _, in := range []string{``, `{`, `{"result":{"block":{"data":{"txs":["@@"]}}}}`, `{"result":{"block":{"data":{"txs":["YQ==" `, `{"result":null}`} {
		if _, err := ParseBlock([]byte(in)); err == nil {
			t.Errorf("ParseBlock(%q): want an error", in)
		}
	}
}

// TestParseBlockManyTxs checks the hand-written txs scanner against
// encoding of many transactions of various sizes, including empty ones.
func TestParseBlockManyTxs(t *testing.T) {
	var txs [][]byte
	var parts []string
	for i := range 50 {
		tx := bytes.Repeat([]byte{byte(i)}, i*7)
		txs = append(txs, tx)
		parts = append(parts, `"`+base64.StdEncoding.EncodeToString(tx)+`"`)
	}
	doc := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"block":{"header":{"height":"7","time":"2026-01-02T03:04:05Z"},"data":{"txs":[%s]},"last_commit":{"round":2}}}}`, strings.Join(parts, ", "))
	blk, err := ParseBlock([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if blk.Height != 7 || blk.LastRound != 2 || len(blk.Txs) != len(txs) {
		t.Fatalf("height %d round %d txs %d", blk.Height, blk.LastRound, len(blk.Txs))
	}
	for i := range txs {
		if !bytes.Equal(blk.Txs[i], txs[i]) {
			t.Errorf("tx %d differs", i)
		}
	}
}

func FuzzParseBlock(f *testing.F) {
	b, err := os.ReadFile("testdata/block_v0.40.0.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"result":{"block":{"data":{"txs":[]}}}}`))
	f.Add([]byte(`{"result":{"block":{"data":{"txs":["YQ==",]}}}}`))
	f.Add([]byte(`{"result":{"block":{"last_commit":{"signatures":[{"block_id_flag":1,"validator_address":"AA"}]}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		blk, err := ParseBlock(in)
		if err != nil {
			return
		}
		if len(blk.Txs) != blk.TxCount {
			t.Errorf("TxCount %d != len(Txs) %d", blk.TxCount, len(blk.Txs))
		}
		// Every vote has a known flag, and an address only when present.
		for _, v := range blk.LastCommit {
			if v.Flag < FlagAbsent || v.Flag > FlagNil || (v.Flag == FlagAbsent && v.Validator != "") {
				t.Errorf("vote %+v", v)
			}
		}
	})
}

func BenchmarkParseBlock1000x1KiB(b *testing.B) {
	var parts []string
	tx := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("a"), 1024))
	for range 1000 {
		parts = append(parts, `"`+tx+`"`)
	}
	doc := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"block":{"header":{"height":"7","time":"2026-01-02T03:04:05Z"},"data":{"txs":[%s]},"last_commit":{"round":0}}}}`, strings.Join(parts, ",")))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := ParseBlock(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAddrs(t *testing.T) {
	for _, c := range []struct{ in, http, ws string }{
		{"tcp://127.0.0.1:1", "http://127.0.0.1:1", "ws://127.0.0.1:1/websocket"},
		{"ws://127.0.0.1:1/websocket", "http://127.0.0.1:1", "ws://127.0.0.1:1/websocket"},
		{"http://h:2/", "http://h:2", "ws://h:2/websocket"},
		{"wss://h:3/websocket", "https://h:3", "wss://h:3/websocket"},
	} {
		if got := HTTPAddr(c.in); got != c.http {
			t.Errorf("HTTPAddr(%q) = %q, want %q", c.in, got, c.http)
		}
		if got := WSAddr(c.in); got != c.ws {
			t.Errorf("WSAddr(%q) = %q, want %q", c.in, got, c.ws)
		}
	}
}

// TestParseBlockLastCommit checks the precommits of a last commit: one of
// each flag, an absent one without address or time, and a bad flag refused.
func TestParseBlockLastCommit(t *testing.T) {
	const sigs = `[{"block_id_flag":2,"validator_address":"AA","timestamp":"2026-01-02T03:04:05.5Z","signature":"x"},` +
		`{"block_id_flag":1,"validator_address":"","timestamp":"0001-01-01T00:00:00Z","signature":null},` +
		`{"block_id_flag":3,"validator_address":"CC","timestamp":"2026-01-02T03:04:06Z","signature":"y"}]`
	doc := `{"result":{"block":{"header":{"height":"7","time":"2026-01-02T03:04:05Z"},"data":{"txs":[]},"last_commit":{"round":1,"signatures":` + sigs + `}}}}`
	blk, err := ParseBlock([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Vote{
		{FlagCommit, "AA", time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC)},
		{FlagAbsent, "", time.Time{}},
		{FlagNil, "CC", time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)},
	}
	if len(blk.LastCommit) != len(want) {
		t.Fatalf("got %d votes, want %d", len(blk.LastCommit), len(want))
	}
	for i, w := range want {
		g := blk.LastCommit[i]
		if g.Flag != w.Flag || g.Validator != w.Validator || !g.Time.Equal(w.Time) {
			t.Errorf("vote %d = %+v, want %+v", i, g, w)
		}
	}
	if s := FlagAbsent.String() + FlagCommit.String() + FlagNil.String() + BlockIDFlag(9).String(); s != "absentcommitnil9" {
		t.Errorf("flag names %q", s)
	}
	bad := strings.Replace(doc, `"block_id_flag":3`, `"block_id_flag":4`, 1)
	if _, err := ParseBlock([]byte(bad)); err == nil {
		t.Error("block_id_flag 4: want an error")
	}
	rec, err := os.ReadFile("testdata/block_v0.40.0.json")
	if err != nil {
		t.Fatal(err)
	}
	if blk, err := ParseBlock(rec); err != nil || len(blk.LastCommit) != 1 || blk.LastCommit[0].Flag != FlagCommit {
		t.Errorf("recorded block: %v, %+v", err, blk.LastCommit)
	}
}
