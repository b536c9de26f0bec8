package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// storageKnobs are the knobs of the candidate's release the storage
// matrix varies under settings s: the first s.storageKnobs of
// cometbft.StorageKnobs (pruning first), each key as a sweep names it.
func storageKnobs(cand manifest.Resolved, s qaSettings) []cometbft.StorageKnob {
	if cand.CometBFTVersion == "" {
		return nil
	}
	knobs := cometbft.StorageKnobs(cand.CometBFTVersion)
	knobs = knobs[:min(len(knobs), max(0, s.storageKnobs))]
	for i := range knobs {
		if k, err := manifest.SweepKey(knobs[i].Key); err == nil {
			knobs[i].Key = k
		}
	}
	return knobs
}

// storageRuns are the storage matrix's runs: the candidate with
// CometBFT's e2e app (whose retain_blocks prunes) at the QA load, one
// run per combination of its release's storage knobs, each as long as
// s.storage — or why the candidate cannot run it: a binary (the e2e app
// is built from a release), its own ABCI app, or a release with no knob.
func storageRuns(in Input, s qaSettings) ([]results.QAPlanRun, string) {
	cand, label := in.Sides[1], in.Labels[1]
	switch {
	case cand.CometBFTVersion == "":
		return nil, "skipped: the storage matrix prunes through the e2e app, built from a release, and the " + label + " runs a cometbft binary"
	case cand.App != manifest.AppKVStore && cand.App != manifest.AppE2E:
		return nil, "skipped: the " + label + " runs its own ABCI app, not CometBFT's e2e app"
	case len(cand.Hosts) > 0:
		return nil, "skipped: a cell's storage growth is the slope of each node's data directory, walked on this machine, " +
			"and the " + label + "'s nodes are on [host.*] hosts"
	}
	knobs := storageKnobs(cand, s)
	if len(knobs) == 0 {
		return nil, fmt.Sprintf("skipped: %s has none of the storage knobs (pruning, compaction, key layout, backend)", cand.CometBFTVersion)
	}
	ch := []string{"app=e2e", "load.duration=" + s.storage.String()}
	last := append([]string(nil), ch...)
	cells := 1
	var what []string
	for _, k := range knobs {
		cells *= len(k.Values)
		last = append(last, k.Key+"="+k.Values[len(k.Values)-1])
		what = append(what, fmt.Sprintf("%s %s", k.Name, strings.Join(k.Values, "|")))
	}
	if _, err := WithChanges(cand, last); err != nil {
		return nil, fmt.Sprintf("skipped: the %s cannot run it: %v", label, err)
	}
	basis := "storage growth per hour extrapolated from each run"
	if s.storage >= time.Hour {
		basis = "storage growth measured over an hour"
	}
	return []results.QAPlanRun{{Side: label, What: fmt.Sprintf("at the QA load with the e2e app, every combination of %s, one run each; %s",
		strings.Join(what, " × "), basis), Changes: ch, Count: cells, DurationS: s.storage.Seconds()}}, ""
}
