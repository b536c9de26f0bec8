package results

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeRecords writes rows to the CSV file path and fails the test on
// error (resultstest.WriteCSV, which these tests cannot import).
func writeRecords(t testing.TB, path, header string, rows ...Record) {
	t.Helper()
	w, err := Create(path, header)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	sent := []Sent{{Conn: 0, Seq: 0, Intended: 1, Actual: 2, Size: 1024}, {Conn: 3, Seq: 9, Intended: 5, Size: 1024, Err: `not connected: dial "x", refused`}}
	replies := []Reply{{Conn: 0, Seq: 0, At: 3, OK: true, Hash: "AB"}, {Conn: 1, Seq: 2, At: 4, Code: -32603, Message: "Internal error: mempool is full: number of txs 5000 (max: 5000)\nline2"}}
	txs := []Tx{{Conn: 1, Seq: 2, Sent: 10, Height: 5, Index: 3, BlockTime: 20, CommitTime: 30, Duplicate: true}}
	blocks := []Block{{Height: 5, Time: 20, CommitTime: 30, Txs: 7, RunTxs: 6, Bytes: 7000, Round: 1, Proposer: "ABCD"}}
	adoption := []Adoption{{Height: 5, Node: "validator01", At: 31}}
	events := []Event{{At: 40, Node: "validator03", Kind: EventExit, Detail: "signal 9"}, {At: 41, Kind: EventPerturbBegin, Detail: "kill 1/2, down 5s"}}
	writeRecords(t, filepath.Join(dir, SentFile), SentHeader, &sent[0], &sent[1])
	writeRecords(t, filepath.Join(dir, RepliesFile), RepliesHeader, &replies[0], &replies[1])
	writeRecords(t, filepath.Join(dir, TxsFile), TxsHeader, &txs[0])
	writeRecords(t, filepath.Join(dir, BlocksFile), BlocksHeader, &blocks[0])
	writeRecords(t, filepath.Join(dir, AdoptionFile), AdoptionHeader, &adoption[0])
	writeRecords(t, filepath.Join(dir, EventsFile), EventsHeader, &events[0], &events[1])
	check := func(name string, got, want any, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
	gs, err := ReadSent(dir)
	check("sent", gs, sent, err)
	gr, err := ReadReplies(dir)
	check("replies", gr, replies, err)
	gt, err := ReadTxs(dir)
	check("txs", gt, txs, err)
	gb, err := ReadBlocks(dir)
	check("blocks", gb, blocks, err)
	ga, err := ReadAdoption(dir)
	check("adoption", ga, adoption, err)
	ge, err := ReadEvents(dir)
	check("events", ge, events, err)
	if ge, err := ReadEvents(t.TempDir()); err != nil || ge != nil {
		t.Errorf("events of a run without events.csv: %v, %v", ge, err)
	}
}

func TestScanTruncatedAndBroken(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, TxsFile)
	full := TxsHeader + "\n1,2,3,4,5,6,7,0\n"
	for _, c := range []struct {
		name, content string
		rows          int
		err           string
	}{
		{"complete", full, 1, ""},
		{"cut mid-row", full + "1,2,3,4", 1, ""},
		{"cut in a quoted field", full + `1,2,"3`, 1, ""},
		{"empty file", "", 0, ""},
		{"bad header", "a,b\n", 0, "header"},
		{"short row in the middle", full + "1,2\n" + "1,2,3,4,5,6,7,0\n", 0, "want 8 fields"},
		{"not a number", TxsHeader + "\nx,2,3,4,5,6,7,0\n", 0, "field 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			txs, err := ReadTxs(dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || len(txs) != c.rows {
				t.Errorf("%d rows, %v; want %d", len(txs), err, c.rows)
			}
		})
	}
}

func TestGzip(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, AdoptionFile+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write([]byte(AdoptionHeader + "\n7,n1,99\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := ReadAdoption(dir)
	if err != nil || len(a) != 1 || a[0].Node != "n1" {
		t.Errorf("got %+v, %v", a, err)
	}
	if _, err := ReadTxs(dir); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}

func FuzzReadReplies(f *testing.F) {
	f.Add([]byte(RepliesHeader + "\n0,0,3,1,0,,AB\n1,2,4,0,-32603,\"a, \"\"b\"\"\",\n"))
	f.Add([]byte(RepliesHeader + "\n0,0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, RepliesFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := ReadReplies(dir)
		if err != nil {
			return
		}
		// What was read writes back and reads again the same.
		rows := make([]Record, len(rs))
		for i := range rs {
			rows[i] = &rs[i]
		}
		writeRecords(t, filepath.Join(dir, "again.csv"), RepliesHeader, rows...)
		var again []Reply
		if err := Scan(filepath.Join(dir, "again.csv"), RepliesHeader, func(f []string) error {
			var r Reply
			if err := r.parse(f); err != nil {
				t.Fatalf("re-read: %v", err)
			}
			again = append(again, r)
			return nil
		}); err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if len(again) != len(rs) {
			t.Fatalf("re-read %d rows, wrote %d", len(again), len(rs))
		}
	})
}
