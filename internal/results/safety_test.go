package results

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSafetyFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if h, err := ReadHashes(dir); h != nil || err != nil {
		t.Fatalf("no hashes.csv: got %v, %v; want nothing and no error", h, err)
	}
	if e, err := ReadEvidence(dir); e != nil || err != nil {
		t.Fatalf("no evidence.csv: got %v, %v; want nothing and no error", e, err)
	}
	hashes := []HashRow{
		{Height: 5, Node: "validator01", BlockHash: "AB01", AppHash: "CD02", Source: HashFromHeader},
		{Height: 9, Node: "a,b", BlockHash: "EF", Source: HashFromStatus},
		{Height: 9, Node: "a,b", AppHash: "12", Source: HashFromApp},
	}
	writeRecords(t, filepath.Join(dir, HashesFile), HashesHeader, &hashes[0], &hashes[1], &hashes[2])
	got, err := ReadHashes(dir)
	if err != nil || !reflect.DeepEqual(got, hashes) {
		t.Errorf("hashes: got %+v, %v; want %+v", got, err, hashes)
	}
	ev := []Evidence{{Height: 12, Type: "DuplicateVoteEvidence", EvidenceHeight: 10, Validator: "0A1B"}}
	writeRecords(t, filepath.Join(dir, EvidenceFile), EvidenceHeader, &ev[0])
	gotEv, err := ReadEvidence(dir)
	if err != nil || !reflect.DeepEqual(gotEv, ev) {
		t.Errorf("evidence: got %+v, %v; want %+v", gotEv, err, ev)
	}
}

func TestSafetyFilesBadRows(t *testing.T) {
	for _, c := range []struct{ name, header, data string }{
		{HashesFile, HashesHeader, "x,n,AB,CD,header\n"},
		{HashesFile, HashesHeader, "5,n,AB\n6,n,AB,CD,header\n"}, // a short last line is a crash, tolerated
		{EvidenceFile, EvidenceHeader, "5,T,x,AB\n"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(c.header+"\n"+c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		if c.name == HashesFile {
			_, err = ReadHashes(dir)
		} else {
			_, err = ReadEvidence(dir)
		}
		if err == nil {
			t.Errorf("%s %q: no error", c.name, c.data)
		}
	}
}

func FuzzReadHashes(f *testing.F) {
	f.Add([]byte(HashesHeader + "\n5,validator01,AB,CD,header\n6,\"a,b\",,EF,app\n"))
	f.Add([]byte(HashesHeader + "\n5,n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, HashesFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := ReadHashes(dir)
		if err != nil {
			return
		}
		recs := make([]Record, len(rows))
		for i := range rows {
			recs[i] = &rows[i]
		}
		again := t.TempDir()
		writeRecords(t, filepath.Join(again, HashesFile), HashesHeader, recs...)
		got, err := ReadHashes(again)
		if err != nil || len(got) != len(rows) || (len(rows) > 0 && !reflect.DeepEqual(got, rows)) {
			t.Fatalf("re-read %+v (%v), wrote %+v", got, err, rows)
		}
	})
}

func FuzzReadEvidence(f *testing.F) {
	f.Add([]byte(EvidenceHeader + "\n12,DuplicateVoteEvidence,10,0A1B\n"))
	f.Add([]byte(EvidenceHeader + "\n12,"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, EvidenceFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := ReadEvidence(dir)
		if err != nil {
			return
		}
		recs := make([]Record, len(rows))
		for i := range rows {
			recs[i] = &rows[i]
		}
		again := t.TempDir()
		writeRecords(t, filepath.Join(again, EvidenceFile), EvidenceHeader, recs...)
		got, err := ReadEvidence(again)
		if err != nil || len(got) != len(rows) || (len(rows) > 0 && !reflect.DeepEqual(got, rows)) {
			t.Fatalf("re-read %+v (%v), wrote %+v", got, err, rows)
		}
	})
}
