package analysis

import (
	"reflect"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestAppVerdicts checks the verdicts against rows with known answers: a
// duplicate commit counted once, failures grouped by codespace and code
// (most first, SDK names given, another codespace's code not taken for
// the SDK's), gas means over first commits; and that the figures and an
// anomaly reach the summary.
func TestAppVerdicts(t *testing.T) {
	rows := []results.TxResult{
		{Conn: 0, Seq: 0, Height: 3, GasWanted: 100, GasUsed: 60},
		{Conn: 0, Seq: 1, Height: 3, Code: 5, Codespace: "sdk", GasWanted: 100, GasUsed: 80, Log: "insufficient funds"},
		{Conn: 1, Seq: 0, Height: 4, Code: 5, Codespace: "sdk", GasWanted: 100, GasUsed: 80, Log: "later"},
		{Conn: 1, Seq: 1, Height: 4, Code: 5, Codespace: "bank", GasWanted: 100, GasUsed: 70, Log: "send disabled"},
		{Conn: 0, Seq: 0, Height: 5, Code: 19, Codespace: "sdk", GasWanted: 999, GasUsed: 999}, // a duplicate commit
	}
	got := appVerdicts(rows)
	want := &AppVerdicts{Succeeded: 1, Failed: 3, GasWantedMean: 100, GasUsedMean: 72.5, Codes: []AppCode{
		{Codespace: "sdk", Code: 5, Name: "insufficient funds", Count: 2, Log: "insufficient funds"},
		{Codespace: "bank", Code: 5, Count: 1, Log: "send disabled"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts\n got %+v\nwant %+v", got, want)
	}
	if got.Codes[0].String() != "sdk 5 (insufficient funds)" || got.Codes[1].String() != "bank 5" {
		t.Errorf("names %q, %q", got.Codes[0], got.Codes[1])
	}
	if appVerdicts(nil) != nil {
		t.Error("no rows: want no verdicts")
	}

	in := synthetic(1, 100, 10, false)
	in.TxResults = rows
	s := Summarize(in)
	if s.AppVerdicts == nil || s.Metrics["app_failed_txs"] != 3 || s.Metrics["app_succeeded_txs"] != 1 || s.Metrics["gas_used_per_tx"] != 72.5 {
		t.Errorf("summary: verdicts %+v, metrics %v", s.AppVerdicts, s.Metrics)
	}
	found := false
	for _, a := range s.Anomalies {
		found = found || a == `3 of the run's 4 committed transactions failed in the app, most with sdk 5 (insufficient funds) (2): "insufficient funds"`
	}
	if !found {
		t.Errorf("no anomaly for the failures: %q", s.Anomalies)
	}
	in.TxResults = rows[:1]
	if s := Summarize(in); len(s.Anomalies) != len(Summarize(synthetic(1, 100, 10, false)).Anomalies) {
		t.Errorf("every transaction succeeded, yet anomalies %q", s.Anomalies)
	}
}
