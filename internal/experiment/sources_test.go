package experiment

import (
	"os"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestSourceRecords: run.json's sources are one per code built (by key),
// with the nodes that ran it in node order; nodes of a release or a
// binary have none; and each node's version names its tree or patches.
func TestSourceRecords(t *testing.T) {
	tree := &cometbft.SourceRecord{Path: "/src/c", Line: "v0.40", Version: "v0.40.0", Commit: "abc", Dirty: true, DiffHash: "d1", Key: "k1"}
	patched := &cometbft.SourceRecord{Release: "v0.40.0", Line: "v0.40", Version: "v0.40.0",
		Patches: []cometbft.Patch{{Path: "/p/fix.diff", SHA256: "h"}}, Key: "k2"}
	spec := cometbft.Spec{Nodes: []cometbft.NodeSpec{{Name: "a", Source: tree}, {Name: "b", Source: patched}, {Name: "c"}, {Name: "d", Source: tree}}}
	want := []results.Source{
		{Nodes: []string{"a", "d"}, Path: "/src/c", Line: "v0.40", Version: "v0.40.0", Commit: "abc", Dirty: true, DiffHash: "d1", Key: "k1"},
		{Nodes: []string{"b"}, Release: "v0.40.0", Line: "v0.40", Version: "v0.40.0", Patches: []results.SourcePatch{{Path: "/p/fix.diff", SHA256: "h"}}, Key: "k2"},
	}
	if got := sourceRecords(spec); !reflect.DeepEqual(got, want) {
		t.Errorf("sources\n%+v\nwant\n%+v", got, want)
	}
	if got := sourceRecords(cometbft.Spec{Nodes: []cometbft.NodeSpec{{Name: "a"}}}); got != nil {
		t.Errorf("no source: %+v", got)
	}
	m := manifest.Resolved{CometBFTVersion: "v0.40.0"}
	for _, c := range []struct {
		n    manifest.Node
		want string
	}{
		{manifest.Node{Version: "v0.40.0", Source: &cometbft.Source{Tree: "/src/c"}}, "tree /src/c (v0.40)"},
		{manifest.Node{Version: "v0.40.0", Source: &cometbft.Source{Release: "v0.40.0", Patches: []string{"/p/fix.diff"}}}, "v0.40.0 + fix.diff"},
		{manifest.Node{Version: "v0.38.26"}, "v0.38.26"},
	} {
		if got := nodeVersion(m, c.n); got != c.want {
			t.Errorf("nodeVersion = %q, want %q", got, c.want)
		}
	}
}

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
