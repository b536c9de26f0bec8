package cometbft

import (
	"fmt"
	"slices"
	"strings"
)

// The v1.x/v2.x features a manifest may turn on by name, each found in the
// release line's facts: PBTS in the genesis's consensus parameters (v1.0
// and later), DOG in config.toml's mempool section (v2.0).

// GenesisPBTSKey is the genesis's consensus parameter (dotted, under
// consensus_params) holding the first height whose blocks carry
// proposer-based timestamps; 0 keeps BFT time.
const GenesisPBTSKey = "feature.pbts_enable_height"

// The config.toml keys of DOG, the mempool's dynamic optimal graph
// (ADR-119, v2.0): whether it runs, the redundancy it aims at and how
// often it adjusts the routes.
const (
	ConfigDOGEnabled    = "mempool.dog_protocol_enabled"
	ConfigDOGRedundancy = "mempool.dog_target_redundancy"
	ConfigDOGInterval   = "mempool.dog_adjust_interval"
)

// lineChain returns the line of release version and its ancestors,
// nearest first; nil for a release of no known line.
func lineChain(version string) []Line {
	l, err := LineOf(version)
	if err != nil {
		return nil
	}
	out := []Line{l}
	for l.Parent != "" {
		p, ok := LineByPrefix(l.Parent)
		if !ok {
			break
		}
		out = append(out, p)
		l = p
	}
	return out
}

// hasKey reports whether the release's files have key: added by its line
// or an ancestor and not removed by a nearer one.
func hasKey(version, key string, added, removed func(Line) []string) bool {
	for _, l := range lineChain(version) {
		if slices.Contains(removed(l), key) {
			return false
		}
		if slices.Contains(added(l), key) {
			return true
		}
	}
	return false
}

// GenesisHas reports whether release version's genesis has the consensus
// parameter key (dotted, under consensus_params) that a line added
// (Line.GenesisAdded, against the oldest line's genesis).
func GenesisHas(version, key string) bool {
	return hasKey(version, key, func(l Line) []string { return l.GenesisAdded }, func(l Line) []string { return l.GenesisRemoved })
}

// ConfigHas reports whether release version's config.toml has the key
// (dotted) that a line added (Line.ConfigAdded).
func ConfigHas(version, key string) bool {
	return hasKey(version, key, func(l Line) []string { return l.ConfigAdded }, func(l Line) []string { return l.ConfigRemoved })
}

// FeatureProblem says why release version cannot run the feature (what)
// that key holds ("" when it can): a release of no known line, or a line
// without the key, naming the lines that have it.
func FeatureProblem(version, what, key string, has func(version, key string) bool) string {
	if _, err := LineOf(version); err != nil {
		return err.Error()
	}
	if has(version, key) {
		return ""
	}
	var lines []string
	for _, l := range Lines() {
		if has(l.Proven, key) {
			lines = append(lines, l.Prefix)
		}
	}
	return fmt.Sprintf("%s has no %s (%s: %s only)", version, what, key, strings.Join(lines, ", "))
}
