package results

import "testing"

func TestClockBound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		clocks []Clock
		want   int64
	}{
		{"none", nil, 0},
		{"no load host", []Clock{{Host: "h1", Role: "validators", OffsetNs: 5e6, UncertaintyNs: 1e5}}, 0},
		{"load on a validators' host", []Clock{{Host: "h1", Role: "load, validators", OffsetNs: 5e6, UncertaintyNs: 1e5}}, 2e5},
		{"two validators' hosts, one load host", []Clock{
			{Host: "h1", Role: "validators", OffsetNs: 2e6, UncertaintyNs: 3e5},
			{Host: "h2", Role: "validators", OffsetNs: -1e6, UncertaintyNs: 1e5},
			{Host: "l1", Role: "load", OffsetNs: 1e6, UncertaintyNs: 2e5},
			{Host: "f1", Role: "nodes", OffsetNs: 9e9, UncertaintyNs: 1e5}, // full nodes make no block time
		}, 2e6 + 2e5 + 1e5},
	} {
		if got := ClockBound(tc.clocks); got != tc.want {
			t.Errorf("%s: ClockBound %d, want %d", tc.name, got, tc.want)
		}
	}
}
