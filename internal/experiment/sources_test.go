package experiment

import (
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// TestBinaryRecords: the programs of a spec are recorded once each, with
// the nodes that run them and the build information the go command
// stamped in them (the test binary's own: this module, this Go); a file
// that is no Go program has only its path.
func TestBinaryRecords(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	notGo := t.TempDir() + "/cometbft"
	if err := os.WriteFile(notGo, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := cometbft.Spec{Nodes: []cometbft.NodeSpec{{Name: "a", Binary: self}, {Name: "b", Binary: notGo, AppBinary: self},
		{Name: "c", Binary: notGo}}}
	got := binaryRecords(spec)
	if len(got) != 2 {
		t.Fatalf("%d binaries, want 2: %+v", len(got), got)
	}
	if b := got[0]; !slices.Equal(b.Nodes, []string{"a", "b"}) || b.Module != "github.com/cometlab/cometlab" || b.GoVersion != runtime.Version() {
		t.Errorf("the test binary: %+v", b)
	}
	if b := got[1]; !slices.Equal(b.Nodes, []string{"c"}) || b.Path != notGo || b.Module != "" {
		t.Errorf("a file with no build information: %+v", b)
	}
}
