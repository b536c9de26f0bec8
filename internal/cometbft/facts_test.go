package cometbft_test

import (
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
)

// TestMetricsAbsentScraped checks that every family a line lacks, and the
// equivalent it has instead, are in the default scrape.
func TestMetricsAbsentScraped(t *testing.T) {
	families := collect.NewSeries("x", false).Families()
	for _, l := range cometbft.Lines() {
		for def, eq := range l.MetricsAbsent {
			for _, f := range []string{def, eq} {
				if f != "" && !slices.Contains(families, "x_"+f) {
					t.Errorf("%s: %s is not in the default scrape", l.Prefix, f)
				}
			}
		}
	}
}
