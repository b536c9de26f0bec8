package cometbft

import (
	"slices"
	"strconv"
)

// StoragePruneRetain is the blocks the storage matrix's pruning cells
// keep (the e2e app's retain_blocks): few, so that even a short run
// prunes (a run passes that many heights within its first seconds).
const StoragePruneRetain = 10

// StorageKnob is one setting of CometBFT's storage QA (the v1 storage
// report: pruning, forced compaction, key layout, database backend), as
// a manifest key and the values the matrix runs, the release's default
// first.
type StorageKnob struct {
	Name   string // "pruning"
	Key    string // a manifest key, as manifest.Set takes it
	Values []string
	// What says what the values do, for plans and reports.
	What string
}

// StorageKnobs returns the storage matrix's knobs that release version
// has, in the storage report's order: pruning (the e2e app's
// retain_blocks: every line's e2e app), forced compaction and the
// database key layout (config.toml's storage.compact and
// storage.experimental_db_key_layout, where the line added them: v1.0),
// and the database backend (goleveldb against pebbledb, where the
// release compiles pebbledb in: the lines whose default it is). nil for
// a release of an unknown line.
func StorageKnobs(version string) []StorageKnob {
	l, err := LineOf(version)
	if err != nil {
		return nil
	}
	var out []StorageKnob
	if slices.Contains(l.E2EAppKeys, "retain_blocks") {
		out = append(out, StorageKnob{Name: "pruning", Key: "app.retain_blocks", Values: []string{"0", strconv.Itoa(StoragePruneRetain)},
			What: "the app keeps every block (0) or the last " + strconv.Itoa(StoragePruneRetain) + " (retain_blocks)"})
	}
	if HasConfigKey(version, "storage.compact") {
		out = append(out, StorageKnob{Name: "compaction", Key: "storage.compact", Values: []string{"false", "true"},
			What: "forced compaction of what pruning deleted (storage.compact)"})
	}
	if HasConfigKey(version, "storage.experimental_db_key_layout") {
		out = append(out, StorageKnob{Name: "key layout", Key: "storage.experimental_db_key_layout", Values: []string{"v1", "v2"},
			What: "the stores' key layout: v1, or v2 ordered by height (storage.experimental_db_key_layout)"})
	}
	if l.DBBackend == "pebbledb" {
		out = append(out, StorageKnob{Name: "backend", Key: "config.db_backend", Values: []string{"pebbledb", "goleveldb"},
			What: "the database backend (db_backend)"})
	}
	return out
}

// HasConfigKey reports whether release version's config.toml has key
// (dotted), as far as the lines' facts tell: some line on its way from
// the oldest (itself included) added it and none after removed it. A key
// every line has (no line added it) is reported absent.
func HasConfigKey(version string, key string) bool {
	l, err := LineOf(version)
	if err != nil {
		return false
	}
	var path []Line // the line, its parent, …, the oldest
	for ok := true; ok; {
		path = append(path, l)
		if l.Parent == "" {
			break
		}
		l, ok = LineByPrefix(l.Parent)
	}
	for _, p := range path { // newest first: the nearest change decides
		switch {
		case slices.Contains(p.ConfigRemoved, key):
			return false
		case slices.Contains(p.ConfigAdded, key):
			return true
		}
	}
	return false
}
