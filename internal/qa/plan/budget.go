package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/manifest"
)

// ceilMinute is s seconds rounded up to a whole minute.
func ceilMinute(s float64) time.Duration {
	return time.Duration(math.Ceil(s/60)) * time.Minute
}

// qaShrink is one way the budget shrinks the plan: shrink takes one
// step of it (false when it cannot), said what it gave up from the
// first settings to the last ("" for nothing).
type qaShrink struct {
	shrink func(qaSettings) (qaSettings, bool)
	said   func(from, to qaSettings) string
}

// qaShrinks are the budget's shrinks in their order (see Make).
func qaShrinks(in Input, s0 qaSettings) []qaShrink {
	planned := map[string]bool{}
	for _, id := range Steps() {
		if !slices.Contains(in.Skip, id) && qaNotBuilt[id] == "" {
			_, why := planRuns(id, in, s0)
			planned[id] = why == ""
		}
	}
	runs := func(id string) bool { return planned[id] }
	var scenarios []string
	for _, id := range []string{Rotation, VoteExtensions, Partition, AbsentStake} {
		if runs(id) {
			scenarios = append(scenarios, strings.ToLower(Title(id)))
		}
	}
	longFloor := min(cmpOr(in.Repeat, DefaultRepeat), 2)
	return []qaShrink{
		{func(s qaSettings) (qaSettings, bool) {
			if s.scenario <= 1 || len(scenarios) == 0 {
				return s, false
			}
			s.scenario--
			return s, true
		}, func(a, b qaSettings) string {
			return changed(a.scenario != b.scenario, "%s: %s instead of %d", strings.Join(scenarios, ", "), roundsText(b.scenario), a.scenario)
		}},
		{func(s qaSettings) (qaSettings, bool) {
			if len(s.veSizes) <= 2 || !runs(VoteExtensions) {
				return s, false
			}
			s.veSizes = slices.Delete(slices.Clone(s.veSizes), len(s.veSizes)-2, len(s.veSizes)-1)
			return s, true
		}, func(a, b qaSettings) string {
			return changed(len(a.veSizes) != len(b.veSizes), "vote-extension sizes %v instead of %v", b.veSizes, a.veSizes)
		}},
		{func(s qaSettings) (qaSettings, bool) {
			if s.storageKnobs <= 1 || !runs(Storage) {
				return s, false
			}
			s.storageKnobs--
			return s, true
		}, func(a, b qaSettings) string {
			return changed(a.storageKnobs != b.storageKnobs, "storage matrix: %s instead of %s",
				knobNames(in.Sides[1], b), knobNames(in.Sides[1], a))
		}},
		{func(s qaSettings) (qaSettings, bool) {
			switch {
			case !runs(Saturation):
				return s, false
			case len(s.conns) > 2:
				s.conns = s.conns[:len(s.conns)-1]
			case len(s.factors) > 3:
				s.factors = s.factors[1:]
			case len(s.conns) > 1:
				s.conns = s.conns[:len(s.conns)-1]
			default:
				return s, false
			}
			return s, true
		}, func(a, b qaSettings) string {
			return changed(len(a.conns)*len(a.factors) != len(b.conns)*len(b.factors), "saturation grid c ∈ %v × r ∈ knee·%s instead of c ∈ %v × knee·%s",
				b.conns, factorsText(b.factors), a.conns, factorsText(a.factors))
		}},
		{func(s qaSettings) (qaSettings, bool) {
			d := in.Sides[1].Load.Duration
			if s.long <= d || !runs(Long) {
				return s, false
			}
			s.long = max(d, s.long/2)
			return s, true
		}, func(a, b qaSettings) string {
			return changed(a.long != b.long, "long test of %v instead of %v", b.long, a.long)
		}},
		{func(s qaSettings) (qaSettings, bool) {
			d := in.Sides[1].Load.Duration
			if s.storage <= d || !runs(Storage) {
				return s, false
			}
			s.storage = max(d, s.storage/2)
			return s, true
		}, func(a, b qaSettings) string {
			return changed(a.storage != b.storage, "storage matrix runs of %v instead of %v (growth per hour extrapolated)", b.storage, a.storage)
		}},
		{func(s qaSettings) (qaSettings, bool) {
			if s.repeat <= longFloor || !runs(Long) {
				return s, false
			}
			s.repeat--
			return s, true
		}, func(a, b qaSettings) string {
			return changed(a.repeat != b.repeat, "long test: %d rounds instead of %d", b.repeat, a.repeat)
		}},
	}
}

// knobNames are the storage knobs settings s keep, by name.
func knobNames(cand manifest.Resolved, s qaSettings) string {
	var names []string
	for _, k := range storageKnobs(cand, s) {
		names = append(names, k.Name)
	}
	return strings.Join(names, " × ")
}

func changed(did bool, format string, a ...any) string {
	if !did {
		return ""
	}
	return fmt.Sprintf(format, a...)
}
