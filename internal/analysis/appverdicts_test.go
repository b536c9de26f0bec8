package analysis

import (
	"reflect"
	"strings"
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

// TestAppTimeFigures checks the app's times against the synthetic nodes'
// known answers (resultstest: Commit 4 ms a height, CheckTx 0.2 ms a
// transaction) and its share of the interval against its definition; a
// run whose nodes report no ABCI timing (before v0.38) has none of them.
func TestAppTimeFigures(t *testing.T) {
	s := Summarize(synthetic(4, 2000, 10, true))
	m := s.Metrics
	near := func(id string, want float64) {
		t.Helper()
		if got, ok := m[id]; !ok || got < want*0.999 || got > want*1.001 {
			t.Errorf("%s = %v (%v), want %v", id, got, ok, want)
		}
	}
	near("app_commit_mean_ms", 4)
	near("check_tx_mean_ms", 0.2)
	near("app_share_of_interval", (m["block_processing_time_mean_ms"]+4)/(m["block_interval_mean_s"]*1000))
	for n, fs := range s.Nodes {
		if v := fs["app_commit_mean_ms"]; v < 3.99 || v > 4.01 {
			t.Errorf("node %s: Commit time %v, want 4 ms", n, v)
		}
	}
	if len(s.Nodes) == 0 {
		t.Error("no per-node figures")
	}
	// CheckTx timed as two types (the clist mempool's "async", the app
	// mempool's "sync"): the mean is over every call, 0.2 ms and 0.6 ms
	// a call for as many calls each: 0.4 ms.
	both := synthetic(4, 2000, 10, true)
	var two []results.Metric
	for _, x := range both.Metrics.All() {
		for j, at := range x.T {
			r := results.Metric{Time: at, Node: x.Node, Name: x.Name, Labels: x.Labels, Value: x.V[j]}
			two = append(two, r)
			if x.Label("method") == "check_tx" {
				r.Labels = strings.Replace(r.Labels, "type=sync", "type=async", 1)
				if x.Short == abciTiming+"_sum" {
					r.Value *= 3
				}
				two = append(two, r)
			}
		}
	}
	both.Metrics = NewSeriesSet(two)
	if got := Summarize(both).Metrics["check_tx_mean_ms"]; got < 0.3996 || got > 0.4004 {
		t.Errorf("CheckTx timed as two types: %v ms, want 0.4", got)
	}
	in := synthetic(4, 2000, 10, true)
	var rows []results.Metric
	for _, x := range in.Metrics.All() {
		if x.Short != abciTiming+"_sum" && x.Short != abciTiming+"_count" {
			for j, at := range x.T {
				rows = append(rows, results.Metric{Time: at, Node: x.Node, Name: x.Name, Labels: x.Labels, Value: x.V[j]})
			}
		}
	}
	in.Metrics = NewSeriesSet(rows)
	for _, id := range []string{"app_commit_mean_ms", "check_tx_mean_ms", "app_share_of_interval"} {
		if v, ok := Summarize(in).Metrics[id]; ok {
			t.Errorf("%s = %v without ABCI timing", id, v)
		}
	}
}
