package results

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCommitCPURoundTrip(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadCommitCPU(dir); got != nil || err != nil {
		t.Fatalf("no commitcpu.csv: got %v, %v; want nothing and no error", got, err)
	}
	rows := []CommitCPU{{Height: 5, Node: "validator01", At: 31, PID: 77, CPU: 120_000_000}, {Height: 6, Node: "a,b/app", At: 32}}
	writeRecords(t, filepath.Join(dir, CommitCPUFile), CommitCPUHeader, &rows[0], &rows[1])
	got, err := ReadCommitCPU(dir)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Errorf("got %+v, %v; want %+v", got, err, rows)
	}
}

func FuzzReadCommitCPU(f *testing.F) {
	f.Add([]byte(CommitCPUHeader + "\n5,validator01,31,77,120000000\n6,\"a,b\",32,0,0\n"))
	f.Add([]byte(CommitCPUHeader + "\n5,n"))
	f.Add([]byte("height,node\n1,2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip[CommitCPU](t, data, CommitCPUFile, CommitCPUHeader, ReadCommitCPU)
	})
}

// roundTrip checks a reader against what it read: data written as file
// and read, if it parses, writes back and reads again the same.
func roundTrip[T any, PT interface {
	*T
	Record
}](t *testing.T, data []byte, file, header string, read func(string) ([]T, error)) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := read(dir)
	if err != nil {
		return
	}
	recs := make([]Record, len(rows))
	for i := range rows {
		recs[i] = PT(&rows[i])
	}
	again := t.TempDir()
	writeRecords(t, filepath.Join(again, file), header, recs...)
	got, err := read(again)
	if err != nil || len(got) != len(rows) || (len(rows) > 0 && !reflect.DeepEqual(got, rows)) {
		t.Fatalf("re-read %+v (%v), wrote %+v", got, err, rows)
	}
}
