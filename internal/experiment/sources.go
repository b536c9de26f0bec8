package experiment

import (
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results"
)

// sourceRecords are run.json's sources of spec: one per distinct code
// built (by cache key), with the nodes that ran it, in node order; nil
// when every node ran a release as served or a user's binary.
func sourceRecords(spec cometbft.Spec) []results.Source {
	var out []results.Source
	index := map[string]int{}
	for _, n := range spec.Nodes {
		s := n.Source
		if s == nil {
			continue
		}
		if i, ok := index[s.Key]; ok {
			out[i].Nodes = append(out[i].Nodes, n.Name)
			continue
		}
		index[s.Key] = len(out)
		r := results.Source{Nodes: []string{n.Name}, Path: s.Path, Release: s.Release, Module: s.Module, SemVer: s.SemVer,
			Line: s.Line, Version: s.Version, Commit: s.Commit, Branch: s.Branch, Describe: s.Describe, Dirty: s.Dirty,
			DiffHash: s.DiffHash, TreeHash: s.TreeHash, Key: s.Key}
		for _, p := range s.Patches {
			r.Patches = append(r.Patches, results.SourcePatch{Path: p.Path, SHA256: p.SHA256})
		}
		out = append(out, r)
	}
	return out
}
