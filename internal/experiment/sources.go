package experiment

import (
	"debug/buildinfo"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results"
)

// sourceRecords are run.json's sources of spec: one per distinct code
// built (by cache key), with the nodes that ran it (from the start, or
// after an upgrade to a tree), in node order; nil when every node ran a
// release as served or a user's binary.
func sourceRecords(spec cometbft.Spec) []results.Source {
	var out []results.Source
	index := map[string]int{}
	for _, n := range spec.Nodes {
		for _, s := range []*cometbft.SourceRecord{n.Source, spec.UpgradeSources[n.Name]} {
			if s != nil {
				out = addSource(out, index, s, n.Name)
			}
		}
	}
	return out
}

// addSource adds node's use of s to out (index: where each key is).
func addSource(out []results.Source, index map[string]int, s *cometbft.SourceRecord, node string) []results.Source {
	if i, ok := index[s.Key]; ok {
		out[i].Nodes = append(out[i].Nodes, node)
		return out
	}
	index[s.Key] = len(out)
	r := results.Source{Nodes: []string{node}, Path: s.Path, Release: s.Release, Module: s.Module, SemVer: s.SemVer,
		Line: s.Line, Version: s.Version, Commit: s.Commit, Branch: s.Branch, Describe: s.Describe, Dirty: s.Dirty,
		DiffHash: s.DiffHash, TreeHash: s.TreeHash, CommitTime: s.CommitTime, Key: s.Key}
	for _, p := range s.Patches {
		r.Patches = append(r.Patches, results.SourcePatch{Path: p.Path, SHA256: p.SHA256})
	}
	return append(out, r)
}

// binaryRecords are the programs the nodes of spec run (the e2e app node
// in place of cometbft where it runs), each with the build information
// the go command stamped into it and the nodes that run it.
func binaryRecords(spec cometbft.Spec) []results.Binary {
	var out []results.Binary
	index := map[string]int{}
	for _, n := range spec.Nodes {
		path := n.Binary
		if n.AppBinary != "" {
			path = n.AppBinary
		}
		if path == "" {
			continue
		}
		if i, ok := index[path]; ok {
			out[i].Nodes = append(out[i].Nodes, n.Name)
			continue
		}
		index[path] = len(out)
		out = append(out, binaryRecord(path, n.Name))
	}
	return out
}

// binaryRecord is path's build information (only Path when it has none).
func binaryRecord(path, node string) results.Binary {
	b := results.Binary{Nodes: []string{node}, Path: path}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return b
	}
	b.Main, b.Module, b.Version, b.Sum, b.GoVersion = bi.Path, bi.Main.Path, bi.Main.Version, bi.Main.Sum, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "-tags":
			b.Tags = s.Value
		case "CGO_ENABLED":
			b.CGO = s.Value == "1"
		}
	}
	return b
}

// recordCode records in run.json the code the nodes of spec run: the
// source trees and patched releases, and every binary's build information.
func recordCode(rd *runDir, spec cometbft.Spec) {
	srcs, bins := sourceRecords(spec), binaryRecords(spec)
	rd.set(func(r *results.Run) { r.Sources, r.Binaries = srcs, bins })
}
