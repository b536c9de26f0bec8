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
		abs, v, ok := readTree(ps, key("cometbft_source"), tree)
		if !ok {
			return nil, version
		}
		src.Tree, version = abs, v
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

// readTree reads the CometBFT tree at path (relative to the working
// directory) without building it: its absolute path and the release it
// derives from (cometbft.ReadTree). A path that is not a CometBFT tree
// whose line can be told is a problem at field, the path named as
// written; ok is false then.
func readTree(ps *problems, field []string, path string) (abs, version string, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		ps.add(field, "%v", err)
		return "", "", false
	}
	info, err := cometbft.ReadTree(abs)
	if err != nil {
		ps.add(field, "%s", strings.ReplaceAll(err.Error(), abs, path))
		return "", "", false
	}
	return abs, info.Version, true
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
