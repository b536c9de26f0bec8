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
		roundTrip[HashRow](t, data, HashesFile, HashesHeader, ReadHashes)
	})
}

func FuzzReadEvidence(f *testing.F) {
	f.Add([]byte(EvidenceHeader + "\n12,DuplicateVoteEvidence,10,0A1B\n"))
	f.Add([]byte(EvidenceHeader + "\n12,"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip[Evidence](t, data, EvidenceFile, EvidenceHeader, ReadEvidence)
	})
}
