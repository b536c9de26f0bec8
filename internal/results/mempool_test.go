package results

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMempoolRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadMempool(dir); got != nil || err != nil {
		t.Fatalf("no mempool.csv: got %v, %v; want nothing and no error", got, err)
	}
	rows := []MempoolSample{{Height: 5, Node: "validator01", At: 31, Txs: 120, Bytes: 30720}, {Height: 6, Node: "a,b", At: 32}}
	writeRecords(t, filepath.Join(dir, MempoolFile), MempoolHeader, &rows[0], &rows[1])
	got, err := ReadMempool(dir)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Errorf("got %+v, %v; want %+v", got, err, rows)
	}
}

// TestMempoolGzip checks that mempool.csv.gz is read when mempool.csv is
// absent, as every reader of the run directory does.
func TestMempoolGzip(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, MempoolFile+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write([]byte(MempoolHeader + "\n7,n1,99,3,768\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMempool(dir)
	want := []MempoolSample{{Height: 7, Node: "n1", At: 99, Txs: 3, Bytes: 768}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
}

func FuzzReadMempool(f *testing.F) {
	f.Add([]byte(MempoolHeader + "\n5,validator01,31,120,30720\n6,\"a,b\",32,0,0\n"))
	f.Add([]byte(MempoolHeader + "\n5,n"))
	f.Add([]byte("height,node\n1,2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip[MempoolSample](t, data, MempoolFile, MempoolHeader, ReadMempool)
	})
}
