package load

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseTxs(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"hex", "6b3d76\n  AABB  \n\n00ff\n", []string{"k=v", "\xaa\xbb", "\x00\xff"}},
		{"base64", "a2V5PXZhbHVl\nYT0x\n", []string{"key=value", "a=1"}},
		{"base64 because one line is not hex", "abcd\nYT0x\n", []string{"i\xb7\x1d", "a=1"}},
		{"crlf", "YT0x\r\nYj0y\r\n", []string{"a=1", "b=2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTxs("t.txt", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if string(got[i]) != tt.want[i] {
					t.Errorf("tx %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseTxsErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"YT0x\na=1\n", "t.txt:2: not base64 (illegal base64 data at input byte 1); the file is read as base64 because line 1 is not hex"},
		{"abcd\n\nYT0\n", "t.txt:3: not base64"},
		{"", "t.txt: no transactions"},
		{"\n  \n", "t.txt: no transactions"},
		{"YT0x\n" + strings.Repeat("A", MaxTxLine+1), "t.txt:2: line longer than"},
	} {
		_, err := ParseTxs("t.txt", strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.40q: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseTxs checks that a file parses into non-empty transactions that
// re-encode to its lines, or fails naming the file.
func FuzzParseTxs(f *testing.F) {
	for _, s := range []string{"6b3d76\n", "a2V5PXZhbHVl\n", "abcd\nYT0x\n", "", "=\n", "zz\n00\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		txs, err := ParseTxs("f.txt", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var lines []string
		for _, l := range strings.Split(in, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		if len(txs) != len(lines) {
			t.Fatalf("%d txs from %d lines", len(txs), len(lines))
		}
		for i, tx := range txs {
			if len(tx) == 0 {
				t.Fatalf("tx %d empty", i)
			}
			if h := fmt.Sprintf("%x", tx); !strings.EqualFold(h, lines[i]) && !bytes.Equal([]byte(b64(tx)), []byte(lines[i])) {
				t.Fatalf("tx %d = %x does not re-encode to line %q", i, tx, lines[i])
			}
		}
	})
}

// TestRunLines sends a file's transactions over two connections: each is
// sent once, in the schedule's order, and sent.csv names each by its hash.
func TestRunLines(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, func(f *fakeNode) { f.anyTx = true })
	l := newLogs(t)
	var txs [][]byte
	for i := range 60 {
		txs = append(txs, fmt.Appendf(nil, "key%d=value%d", i, i))
	}
	cfg := Config{Endpoint: f.endpoint(), Connections: 2, Rate: 100, Size: 256, Duration: 300 * time.Millisecond,
		Source: Lines("txs.txt", txs)}
	if err := l.generator(t, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	if len(l.sentRows) != 60 {
		t.Fatalf("%d sends, want 60", len(l.sentRows))
	}
	first := l.sentBy[[2]uint64{0, 0}].Intended
	for k, s := range l.sentBy {
		tx := txs[k[1]*2+k[0]]
		if s.Err != "" || s.Hash != TxHash(tx) || s.Size != len(tx) {
			t.Errorf("send %v: %+v, want the hash of %q", k, s, tx)
		}
		// One stream: line m is due m/(2·100) s in.
		if want := first + int64(k[1]*2+k[0])*5e6; s.Intended != want {
			t.Errorf("send %v intended at %d, want %d", k, s.Intended, want)
		}
	}
	got, bad := f.received()
	if len(bad) > 0 || len(got) > 0 {
		t.Errorf("bad requests %q, payloads %v", bad, got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, tx := range txs {
		if f.raw[string(tx)] != 1 {
			t.Errorf("%q received %d times", tx, f.raw[string(tx)])
		}
	}
	// CometBFT's name of "key0=value0".
	if h := TxHash([]byte("key0=value0")); len(h) != 64 || h != strings.ToUpper(h) {
		t.Errorf("TxHash = %q", h)
	}
}

// TestRunLinesRunOut logs the sends past the end of the file as unsent.
func TestRunLinesRunOut(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, func(f *fakeNode) { f.anyTx = true })
	l := newLogs(t)
	cfg := Config{Endpoint: f.endpoint(), Connections: 1, Rate: 100, Size: 256, Duration: 100 * time.Millisecond,
		Source: Lines("txs.txt", [][]byte{[]byte("a=1"), []byte("b=2")})}
	if err := l.generator(t, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	if len(l.sentRows) != 10 || l.sentBy[[2]uint64{0, 2}].Err != "tx source: txs.txt has only 2 transactions" {
		t.Errorf("rows %+v", l.sentRows)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
