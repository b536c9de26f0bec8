package main

import (
	"slices"
	"testing"
)

func TestParseSetFlag(t *testing.T) {
	p, err := parseSetFlag("mempool.size=1000, 5000")
	if err != nil || p.Key != "mempool.size" || !slices.Equal(p.Values, []string{"1000", "5000"}) {
		t.Errorf("got %+v, %v", p, err)
	}
	for _, bad := range []string{"mempool.size", "=1", "mempool.size=", "mempool.size=1,,2", "rate=1,2"} {
		if _, err := parseSetFlag(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
