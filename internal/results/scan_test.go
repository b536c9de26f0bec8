package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// csvRecords reads data with encoding/csv as Scan used to.
func csvRecords(data []byte) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	var out [][]string
	for {
		f, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
}

// fastRecords reads data with recordReader, copying the fields.
func fastRecords(data []byte, views bool) ([][]string, error) {
	r := newRecordReader(bytes.NewReader(data), views)
	var out [][]string
	for {
		f, err := r.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		c := make([]string, len(f))
		for i := range f {
			c[i] = strings.Clone(f[i])
		}
		out = append(out, c)
	}
}

func TestRecordReader(t *testing.T) {
	tests := []struct {
		name, data string
		want       [][]string
		err        error
	}{
		{"plain", "a,b,c\n1,2,3\n", [][]string{{"a", "b", "c"}, {"1", "2", "3"}}, nil},
		{"crlf and no final newline", "a,b\r\n1,2", [][]string{{"a", "b"}, {"1", "2"}}, nil},
		{"empty lines skipped", "a\n\n\r\nb\n", [][]string{{"a"}, {"b"}}, nil},
		{"empty fields", ",,\n", [][]string{{"", "", ""}}, nil},
		{"quoted comma and quote", "1,\"x, \"\"y\"\"\",2\n", [][]string{{"1", `x, "y"`, "2"}}, nil},
		{"quoted newline", "1,\"two\nlines\",3\n4,5,6\n", [][]string{{"1", "two\nlines", "3"}, {"4", "5", "6"}}, nil},
		{"cut in a quoted field", "1,2\n3,\"unfinished", [][]string{{"1", "2"}}, errTruncated},
		{"trailing CR at EOF", "1,2\r", [][]string{{"1", "2"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, views := range []bool{false, true} {
				got, err := fastRecords([]byte(tt.data), views)
				if !errors.Is(err, tt.err) || !reflect.DeepEqual(got, tt.want) {
					t.Errorf("views=%v: got %q, %v; want %q, %v", views, got, err, tt.want, tt.err)
				}
			}
		})
	}
}

func TestRecordReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	got, err := fastRecords([]byte("a,"+long+"\nb\n"), true)
	if err != nil || len(got) != 2 || got[0][1] != long || got[1][0] != "b" {
		t.Fatalf("long line: %d records, %v", len(got), err)
	}
}

// FuzzRecordReader checks that whatever encoding/csv reads without error,
// recordReader reads the same.
func FuzzRecordReader(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "1,\"x\ny\",\"\"\"\"\r\n\n2,3", "a\r\n\r\n,\n", "\"a\"b,c\n", "x,\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, err := csvRecords(data)
		if err != nil {
			return
		}
		for _, views := range []bool{false, true} {
			got, err := fastRecords(data, views)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("views=%v: %q\ngot  %q, %v\nwant %q", views, data, got, err, want)
			}
		}
	})
}

func BenchmarkReadTxs(b *testing.B) {
	dir := b.TempDir()
	w, err := Create(filepath.Join(dir, TxsFile), TxsHeader)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1_000_000 {
		t := Tx{Conn: i % 4, Seq: uint64(i / 4), Sent: 1741946400000000000 + int64(i)*3600000, Height: 100 + int64(i/278), Index: i % 278,
			BlockTime: 1741946400000000000 + int64(i/278)*1e9, CommitTime: 1741946401000000000 + int64(i/278)*1e9}
		if err := w.Write(&t); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		txs, err := ReadTxs(dir)
		if err != nil || len(txs) != 1_000_000 {
			b.Fatal(len(txs), err)
		}
	}
	os.RemoveAll(dir)
}
