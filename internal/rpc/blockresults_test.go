package rpc

import (
	"reflect"
	"strings"
	"testing"
)

// blockResultsDoc is /block_results as CometBFT v0.38–v1.x encodes it (an
// SDK chain's block of a send that succeeded and one that failed; events
// cut to one).
const blockResultsDoc = `{"jsonrpc":"2.0","id":-1,"result":{"height":"12","txs_results":[` +
	`{"code":0,"data":"EiYKJC9jb3Ntb3MuYmFuay52MWJldGExLk1zZ1NlbmRSZXNwb25zZQ==","log":"","info":"","gas_wanted":"100000","gas_used":"61094",` +
	`"events":[{"type":"tx","attributes":[{"key":"fee","value":"","index":true}]}],"codespace":""},` +
	`{"code":5,"data":null,"log":"failed to execute message; message index: 0: spendable balance 1000000000000stake is smaller than 2000000000000stake: insufficient funds",` +
	`"info":"","gas_wanted":"100000","gas_used":"35147","events":[],"codespace":"sdk"}],` +
	`"finalize_block_events":[],"validator_updates":null,"consensus_param_updates":null,"app_hash":"AA=="}}`

func TestParseBlockResults(t *testing.T) {
	got, err := ParseBlockResults([]byte(blockResultsDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := []TxResult{
		{GasWanted: 100000, GasUsed: 61094},
		{Code: 5, Codespace: "sdk", GasWanted: 100000, GasUsed: 35147,
			Log: "failed to execute message; message index: 0: spendable balance 1000000000000stake is smaller than 2000000000000stake: insufficient funds"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, tt := range []struct{ in, err string }{
		{`{"result":{"height":"3","txs_results":null}}`, ""},
		{`{"error":{"code":-32603,"message":"Internal error","data":"could not find results for height #99"}}`, "could not find results"},
		{`{"jsonrpc":"2.0"}`, "no result"},
		{`{`, "decode"},
	} {
		rs, err := ParseBlockResults([]byte(tt.in))
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: %v, %v; want error %q", tt.in, rs, err, tt.err)
		}
	}
}

func FuzzParseBlockResults(f *testing.F) {
	f.Add([]byte(blockResultsDoc))
	f.Add([]byte(`{"result":{"txs_results":[{"code":4294967295,"gas_used":"-1"}]}}`))
	f.Add([]byte(`{"result":{"txs_results":[{"gas_wanted":"x"}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		rs, err := ParseBlockResults(in)
		if err != nil && rs != nil {
			t.Errorf("results %v with error %v", rs, err)
		}
	})
}
