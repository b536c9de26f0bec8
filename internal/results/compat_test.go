package results_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestSentCompat checks the run-directory contract for sent.csv: a file
// written before the hash column (testdata/compat/v1) still reads, and
// what the current writer makes of its rows (plus a hashed row, as --txs
// writes) is testdata/compat/v2/sent.csv, which reads back the same.
func TestSentCompat(t *testing.T) {
	old, err := results.ReadSent(filepath.Join("testdata", "compat", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != 3 || old[1].Err == "" || old[2].Conn != 1 {
		t.Fatalf("v1 rows: %+v", old)
	}
	for _, s := range old {
		if s.Hash != "" {
			t.Errorf("v1 row with a hash: %+v", s)
		}
	}
	rows := append(old, results.Sent{Conn: 0, Seq: 2, Intended: 1741946400200000000, Actual: 1741946400200000100, Size: 9,
		Hash: "8A0C5FC2B61B4F2A3D0D5E3C1B0C4B8E2D3C6A1F0E9D8C7B6A5F4E3D2C1B0A99"})
	var b bytes.Buffer
	b.WriteString(results.SentHeader + "\n")
	for i := range rows {
		b.Write(rows[i].AppendCSV(nil))
		b.WriteByte('\n')
	}
	v2 := filepath.Join("testdata", "compat", "v2")
	resultstest.Golden(t, filepath.Join(v2, results.SentFile), b.Bytes())
	again, err := results.ReadSent(v2)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(rows) {
		t.Fatalf("v2: %d rows, want %d", len(again), len(rows))
	}
	for i := range rows {
		if again[i] != rows[i] {
			t.Errorf("v2 row %d: %+v, want %+v", i, again[i], rows[i])
		}
	}
}

// TestSafetyFilesCompat pins the run-directory contract of hashes.csv and
// evidence.csv: what the writer makes of these rows is
// testdata/compat/v2/{hashes,evidence}.csv, which read back the same.
func TestSafetyFilesCompat(t *testing.T) {
	v2 := filepath.Join("testdata", "compat", "v2")
	hashes := []results.HashRow{
		{Height: 7, Node: "validator01", BlockHash: "9F2C", AppHash: "0800000000000000", Source: results.HashFromHeader},
		{Height: 8, Node: "validator02", BlockHash: "1A2B", Source: results.HashFromStatus},
		{Height: 8, Node: "validator02", AppHash: "0900000000000000", Source: results.HashFromApp},
	}
	var b bytes.Buffer
	b.WriteString(results.HashesHeader + "\n")
	for i := range hashes {
		b.Write(hashes[i].AppendCSV(nil))
		b.WriteByte('\n')
	}
	resultstest.Golden(t, filepath.Join(v2, results.HashesFile), b.Bytes())
	if got, err := results.ReadHashes(v2); err != nil || len(got) != len(hashes) || got[2] != hashes[2] {
		t.Errorf("hashes.csv reads back %+v, %v", got, err)
	}
	ev := results.Evidence{Height: 12, Type: "DuplicateVoteEvidence", EvidenceHeight: 10, Validator: "5D3F"}
	b.Reset()
	b.WriteString(results.EvidenceHeader + "\n")
	b.Write(ev.AppendCSV(nil))
	b.WriteByte('\n')
	resultstest.Golden(t, filepath.Join(v2, results.EvidenceFile), b.Bytes())
	if got, err := results.ReadEvidence(v2); err != nil || len(got) != 1 || got[0] != ev {
		t.Errorf("evidence.csv reads back %+v, %v", got, err)
	}
}
