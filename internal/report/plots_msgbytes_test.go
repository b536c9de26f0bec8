package report

import (
	"image/color"
	"testing"
)

// TestTypeColors checks that no two of the first 18 message types share a
// colour (the palette has 9: v0.40's nodes send 11 types or more).
func TestTypeColors(t *testing.T) {
	seen := map[color.NRGBA]int{}
	for j := range 18 {
		c := typeColor(j)
		if k, ok := seen[c]; ok {
			t.Errorf("types %d and %d share colour %v", k, j, c)
		}
		seen[c] = j
	}
}
