package report

import (
	"math"
	"strings"
	"testing"
)

// TestHeadroomText: a test's host line says how busy the host's cores were
// during the loads, the testnet itself included, and calls a test whose
// busiest run went above analysis.BusyLimitPct saturated; a run that did
// not measure it is left out, and none measured says nothing.
func TestHeadroomText(t *testing.T) {
	f := func(busy, load1 float64) qaRunFindings { return qaRunFindings{read: true, busyPct: busy, load1: load1} }
	for _, tc := range []struct {
		name   string
		runs   []qaRunFindings
		want   string
		absent string
	}{
		{"room", []qaRunFindings{f(42, 1.5), f(61, 2.2)}, "its cores 42–61 % busy during the loads (the testnet itself included; 39 % headroom left in the busiest run), load1 up to 2.2", "SATURATED"},
		{"saturated", []qaRunFindings{f(70, 3), f(97, 5.3)}, "**SATURATED**: its cores 70–97 % busy", ""},
		{"not measured", []qaRunFindings{f(math.NaN(), math.NaN())}, "", "busy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := headroomText(tc.runs)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || tc.absent != "" && strings.Contains(got, tc.absent) {
				t.Errorf("got %q, want %q without %q", got, tc.want, tc.absent)
			}
		})
	}
}
