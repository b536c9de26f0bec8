package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestValidators serves a set of 150 over two pages and checks the
// addresses (and powers) come back in order, and that an error reply is
// an error.
func TestValidators(t *testing.T) {
	var all []string
	for i := range 150 {
		all = append(all, fmt.Sprintf("%040X", i))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Params map[string]string `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
		}
		if req.Params["height"] == "9" {
			fmt.Fprint(w, `{"error":{"code":-32603,"message":"Internal error","data":"no height 9"}}`)
			return
		}
		lo := 0
		if req.Params["page"] == "2" {
			lo = 100
		}
		var vs []map[string]string
		for _, a := range all[lo:min(lo+100, len(all))] {
			vs = append(vs, map[string]string{"address": a, "voting_power": "7"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"result": map[string]any{"validators": vs, "total": "150"}})
	}))
	defer srv.Close()
	c := New(srv.URL)
	got, err := c.Validators(context.Background(), 3)
	if err != nil || !slices.Equal(got, all) {
		t.Fatalf("got %d addresses (%v), want 150 in order", len(got), err)
	}
	set, err := c.ValidatorSet(context.Background(), 3)
	if err != nil || len(set) != 150 || set[149] != (Validator{Address: all[149], Power: 7}) {
		t.Errorf("ValidatorSet: %d validators, last %+v (%v); want 150, the last with power 7", len(set), set[len(set)-1:], err)
	}
	if _, err := c.Validators(context.Background(), 9); err == nil {
		t.Error("error reply: want an error")
	}
}
