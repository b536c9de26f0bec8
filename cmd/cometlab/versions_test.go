package main

import (
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// TestExpandBuild: "matrix" is the default release, then every line's
// proven release, each once; "default" the default release; other names
// stay where they were.
func TestExpandBuild(t *testing.T) {
	got := expandBuild([]string{"v0.38.1", "matrix", cometbft.DefaultVersion})
	want := []string{"v0.38.1", cometbft.DefaultVersion}
	for _, l := range cometbft.Lines() {
		if !slices.Contains(want, l.Proven) {
			want = append(want, l.Proven)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("expandBuild = %v, want %v", got, want)
	}
	// "default" is the default release alone.
	if got := expandBuild([]string{"default", "v0.38.1", cometbft.DefaultVersion}); !slices.Equal(got, []string{cometbft.DefaultVersion, "v0.38.1"}) {
		t.Errorf("expandBuild(default) = %v", got)
	}
}
