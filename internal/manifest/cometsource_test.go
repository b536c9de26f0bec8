package manifest

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestSourceResolves resolves manifests of source trees and patches (the
// fake trees of testdata/trees) into each node's release and source, with
// the capabilities of the tree's line, and checks that Encode's file
// resolves to the same testnet.
func TestSourceResolves(t *testing.T) {
	v040, _ := filepath.Abs("../../testdata/trees/v0.40")
	v039, _ := filepath.Abs("../../testdata/trees/v0.39")
	fix, _ := filepath.Abs("../../testdata/patches/fake-tree-version.diff")
	type want struct{ version, tree, release string }
	for _, c := range []struct {
		name, toml string
		testnet    want
		nodes      map[string]want
	}{
		{"a tree has its line's libp2p and ML-DSA keys",
			"cometbft_source = \"../../testdata/trees/v0.40\"\nlibp2p = true\nkey_type = \"ml_dsa_65\"\nvalidators = 2\n",
			want{"v0.40.0", v040, ""}, map[string]want{"validator01": {"v0.40.0", v040, ""}}},
		{"patches on a release",
			"cometbft_version = \"v0.40.0\"\ncometbft_patches = [\"../../testdata/patches/fake-tree-version.diff\"]\n",
			want{"v0.40.0", "", "v0.40.0"}, map[string]want{"validator01": {"v0.40.0", "", "v0.40.0"}}},
		{"a node of its own tree, one of its own release",
			"cometbft_source = \"../../testdata/trees/v0.40\"\n[node.a]\nmode = \"validator\"\n[node.b]\nmode = \"validator\"\ncometbft_source = \"../../testdata/trees/v0.39\"\n" +
				"[node.c]\nmode = \"validator\"\ncometbft_version = \"v0.40.0\"\n[node.d]\nmode = \"validator\"\ncometbft_patches = [\"../../testdata/patches/fake-tree-version.diff\"]\n",
			want{"v0.40.0", v040, ""}, map[string]want{"a": {"v0.40.0", v040, ""}, "b": {"v0.39.4", v039, ""}, "c": {"v0.40.0", "", ""}, "d": {"v0.40.0", v040, ""}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("m.toml", []byte(c.toml))
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			got := func(v string, tree, release string) want { return want{v, tree, release} }
			ts := want{version: r.CometBFTVersion}
			if r.CometBFTSource != nil {
				ts = got(r.CometBFTVersion, r.CometBFTSource.Tree, r.CometBFTSource.Release)
			}
			if ts != c.testnet {
				t.Errorf("testnet %+v, want %+v", ts, c.testnet)
			}
			for _, n := range r.Nodes {
				w, ok := c.nodes[n.Name]
				if !ok {
					continue
				}
				g := want{version: n.Version}
				if n.Source != nil {
					g = got(n.Version, n.Source.Tree, n.Source.Release)
					if n.Name == "d" && (len(n.Source.Patches) != 1 || n.Source.Patches[0] != fix) {
						t.Errorf("node d's patches %v", n.Source.Patches)
					}
				}
				if g != w {
					t.Errorf("node %s %+v, want %+v", n.Name, g, w)
				}
			}
			enc, err := Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := Parse("enc.toml", enc)
			if err != nil {
				t.Fatalf("%v\n%s", err, enc)
			}
			r2, err := m2.Resolve()
			if err != nil {
				t.Fatalf("%v\n%s", err, enc)
			}
			if !reflect.DeepEqual(r.Nodes, r2.Nodes) || !reflect.DeepEqual(r.CometBFTSource, r2.CometBFTSource) || r.CometBFTVersion != r2.CometBFTVersion {
				t.Errorf("Encode's file resolves to another testnet:\n%s", enc)
			}
		})
	}
}

// TestSetSource checks that --set cometbft_source asks for a tree over the
// file's release (and --cometbft-version for a release over its tree).
func TestSetSource(t *testing.T) {
	m, err := Parse("m.toml", []byte("cometbft_version = \"v0.38.26\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Set("cometbft_source", "../../testdata/trees/v0.40"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil || r.CometBFTSource == nil || r.CometBFTVersion != "v0.40.0" {
		t.Fatalf("%+v, %v", r.CometBFTSource, err)
	}
	v := "v0.38.26"
	if err := m.Apply(Overrides{CometBFTVersion: &v}); err != nil {
		t.Fatal(err)
	}
	if r, err = m.Resolve(); err != nil || r.CometBFTSource != nil || r.CometBFTVersion != v {
		t.Fatalf("%+v %s, %v", r.CometBFTSource, r.CometBFTVersion, err)
	}
}
