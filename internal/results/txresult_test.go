package results

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestTxResultsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadTxResults(dir); got != nil || err != nil {
		t.Fatalf("no tx_results.csv: got %v, %v; want nothing and no error", got, err)
	}
	rows := []TxResult{
		{Conn: 0, Seq: 0, Height: 5, Index: 2, GasWanted: 100000, GasUsed: 61234},
		{Conn: 3, Seq: 9, Height: 6, Index: 0, Code: 5, Codespace: "sdk", GasWanted: 100000, GasUsed: 70000,
			Log: `spendable balance 1stake is smaller than 2stake: insufficient funds, "quoted"`},
	}
	writeRecords(t, filepath.Join(dir, TxResultsFile), TxResultsHeader, &rows[0], &rows[1])
	got, err := ReadTxResults(dir)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Errorf("got %+v, %v; want %+v", got, err, rows)
	}
}

func FuzzReadTxResults(f *testing.F) {
	f.Add([]byte(TxResultsHeader + "\n0,0,5,2,0,,100000,61234,\n3,9,6,0,5,sdk,100000,70000,\"a, b\"\n"))
	f.Add([]byte(TxResultsHeader + "\n0,0,5"))
	f.Add([]byte(TxResultsHeader + "\n0,0,5,2,4294967296,,1,1,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip[TxResult](t, data, TxResultsFile, TxResultsHeader, ReadTxResults)
	})
}
