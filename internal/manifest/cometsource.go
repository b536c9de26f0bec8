package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// sourceOf resolves a cometbft_source and cometbft_patches pair (at the
// top, prefix nil, or in [node.NAME]) over the release version and the
// binary of the same table: the source its nodes are built from (nil for
// neither key) and the release they run, which a tree's version file
// tells (see [cometbft.ReadTree]). A path that is not a CometBFT tree, a
// tree whose line cannot be told, a missing patch file and a source or
// patches beside a binary are problems.
func (m *Manifest) sourceOf(ps *problems, prefix []string, tree string, patches []string, version, binary string) (*cometbft.Source, string) {
	key := func(k string) []string { return append(slices.Clone(prefix), k) }
	if tree == "" && len(patches) == 0 {
		return nil, version
	}
	if binary != "" {
		k := "cometbft_source"
		if tree == "" {
			k = "cometbft_patches"
		}
		ps.add(key(k), "cometbft_binary is a binary cometlab does not build: set one of cometbft_binary and %s", k)
		return nil, version
	}
	src := &cometbft.Source{}
	if tree != "" {
		abs, err := filepath.Abs(tree)
		if err != nil {
			ps.add(key("cometbft_source"), "%v", err)
			return nil, version
		}
		info, err := cometbft.ReadTree(abs)
		if err != nil { // named as written
			ps.add(key("cometbft_source"), "%s", strings.ReplaceAll(err.Error(), abs, tree))
			return nil, version
		}
		src.Tree, version = abs, info.Version
	} else {
		src.Release = version
	}
	for _, p := range patches {
		abs, err := filepath.Abs(p)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if errors.Is(err, os.ErrNotExist) {
			ps.add(key("cometbft_patches"), "%s: no such file", p)
			continue
		}
		if err != nil {
			ps.add(key("cometbft_patches"), "%v", err)
			continue
		}
		src.Patches = append(src.Patches, abs)
	}
	return src, version
}

// resolveNodeSource sets node n's Source and Version from its own
// cometbft_source and cometbft_patches: its patches replace the
// testnet's and apply to its own tree, else to the testnet's tree when
// it names no release, else to its release. A node that names both a
// release and a tree is a problem.
func (m *Manifest) resolveNodeSource(ps *problems, name string, n *Node) {
	mn := m.Nodes[name]
	if mn.CometBFTSource == "" && len(mn.CometBFTPatches) == 0 {
		return
	}
	if mn.CometBFTSource != "" && mn.CometBFTVersion != "" {
		ps.add(f("node", name, "cometbft_source"), "a tree's release is read from its version file: set cometbft_version or cometbft_source, not both")
		return
	}
	tree := mn.CometBFTSource
	if tree == "" && mn.CometBFTVersion == "" {
		tree = m.CometBFTSource
	}
	n.Source, n.Version = m.sourceOf(ps, f("node", name), tree, mn.CometBFTPatches, n.Version, m.CometBFTBinary)
}
