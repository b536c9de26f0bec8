package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// lanes writes "Mempool lanes" for a load over v2.0's lanes: each lane's
// priority, its share of the load, what was sent and committed and its
// block latency, highest priority first, and the plot of each lane's
// latency distribution. Nothing for a load without lanes.
func (m mdWriter) lanes(s analysis.Summary) {
	if len(s.Lanes) == 0 {
		return
	}
	m.f("## Mempool lanes\n\n")
	m.f("Each transaction asked for a lane of the e2e app, picked by the lanes' weights (its payload names the lane; the app returns it from CheckTx). " +
		"The mempool reaps the lanes by priority: under load a higher lane should commit sooner.\n\n")
	var sum uint64
	for _, l := range s.Lanes {
		sum += l.Weight
	}
	var rows [][]string
	for _, l := range lanesByPriority(s.Lanes) {
		share := "—"
		if sum > 0 {
			share = fmt.Sprintf("%.0f %%", 100*float64(l.Weight)/float64(sum))
		}
		rows = append(rows, []string{l.ID, strconv.FormatInt(l.Priority, 10), share, groupDigits(float64(l.Sent)),
			groupDigits(float64(l.Committed)), msOrDash(l.BlockP50), msOrDash(l.BlockP95), msOrDash(l.BlockP99)})
	}
	m.table([]string{"lane", "priority", "share of the load", "sent", "committed", "block p50 ms", "block p95 ms", "block p99 ms"}, "lrrrrrrr", rows)
	m.plot("lanes_latency.png", "")
}

// lanesByPriority returns the lanes highest priority first (ties by id).
func lanesByPriority(ls []analysis.LaneSummary) []analysis.LaneSummary {
	out := slices.Clone(ls)
	slices.SortFunc(out, func(a, b analysis.LaneSummary) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), strings.Compare(a.ID, b.ID))
	})
	return out
}
