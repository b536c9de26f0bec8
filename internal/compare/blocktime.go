package compare

import (
	"fmt"
	"strconv"
	"strings"
)

// pbtsSetting is the setting (see Run.Settings) holding a run's
// consensus_params.feature.pbts_enable_height (v1.0 and later).
const pbtsSetting = "genesis.consensus_params.feature.pbts_enable_height"

// BlockTime says how a run's chain stamped its blocks, from its genesis:
// "BFT time" (the median of the previous commit's vote times: every
// release before v1.0, and v1.0 and later with pbts_enable_height 0) or
// "PBTS from height H" (proposer-based timestamps: the proposer's clock).
// A run whose last height is below H stamped every block with BFT time.
func BlockTime(r Run) string {
	h, err := strconv.ParseInt(strings.Trim(r.Settings[pbtsSetting], `"`), 10, 64)
	if err != nil || h <= 0 || (r.Run.LastHeight > 0 && h > r.Run.LastHeight) {
		return "BFT time"
	}
	return fmt.Sprintf("PBTS from height %d", h)
}

// blockTimeWarning says, when the runs of the sides stamped their blocks
// differently, that their block latencies are not comparable; "" when they
// all stamped them alike. Block latency ends at the block's time: BFT time
// is the median of the precommits of the block that follows, which adds a
// round of voting, while PBTS takes the proposer's clock when it proposed
// (CometBFT's v1 QA report: PBTS latencies are not comparable with BFT
// time).
func blockTimeWarning(sides []Side) string {
	var kinds []string
	by := map[string][]string{}
	for _, s := range sides {
		for _, r := range s.Runs {
			k := BlockTime(r)
			if _, ok := by[k]; !ok {
				kinds = append(kinds, k)
			}
			who := s.Label
			if len(s.Runs) > 1 {
				who += " (" + r.Dir + ")"
			}
			by[k] = append(by[k], who)
		}
	}
	if len(kinds) < 2 {
		return ""
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k + ": " + strings.Join(by[k], ", ")
	}
	return "the runs stamp their blocks differently (" + strings.Join(parts, "; ") + "): block latency ends at the block's time, " +
		"BFT time (the median of the next block's precommit times) or PBTS (the proposer's clock), so block latencies are not comparable " +
		"(CometBFT's v1 QA report says so); compare observed latency, which ends when the target node committed"
}
