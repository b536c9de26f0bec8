package analysis

import (
	"math"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// upgradeRun is a hand-made rolling upgrade of nodes a and b (of a, b, c,
// d) from v1.0.0 to v1.0.1. Every node commits height h at h s, except
// while down. a: perturb-begin and term at 5.0 s, start (and perturb-end)
// at 6.0 s, then commits 6 at 7.5 s, 7 at 7.8 s, 8 at 8.2 s and h ≥ 9 at h
// s. b: perturb-begin 10.0 s, term 10.1 s, start 11.0 s, commits 11 at
// 11.5 s, 12 at 12.0 s, then h at h s. With stall, b, c and d commit
// nothing from 5 s to 7.6 s (heights 5 … 7 come later): the network
// stalls during a's upgrade.
func upgradeRun(stall bool) ([]results.Event, []results.Adoption) {
	s := func(f float64) int64 { return int64(math.Round(f * 1e9)) }
	var ev []results.Event
	for _, u := range []struct {
		node                     string
		begin, term, exit, start float64
	}{{"a", 5, 5, 5.5, 6}, {"b", 10, 10.1, 10.4, 11}} {
		d := "upgrade 1/1, v1.0.0 → v1.0.1"
		for _, e := range []struct {
			at           float64
			kind, detail string
		}{{u.begin, results.EventPerturbBegin, d}, {u.term, results.EventTerm, "SIGTERM"}, {u.exit, results.EventExit, "exit code 0"},
			{u.start, results.EventStart, "pid 7, cometbft v1.0.1 /bin/cometbft"}, {u.start, results.EventPerturbEnd, d}} {
			ev = append(ev, results.Event{At: s(e.at), Node: u.node, Kind: e.kind, Detail: e.detail})
		}
	}
	// When a node commits a height other than at h s (absent: never).
	late := map[string]map[int64]float64{"a": {6: 7.5, 7: 7.8, 8: 8.2}, "b": {11: 11.5, 12: 12}, "c": {}, "d": {}}
	if stall {
		for _, n := range []string{"b", "c", "d"} {
			for h := int64(5); h <= 7; h++ {
				late[n][h] = 7.6 + float64(h)/100
			}
		}
	}
	var ad []results.Adoption
	for h := int64(1); h <= 20; h++ {
		for _, n := range []string{"a", "b", "c", "d"} {
			at, ok := late[n][h]
			if !ok {
				at = float64(h)
			}
			ad = append(ad, results.Adoption{Height: h, Node: n, At: s(at)})
		}
	}
	return ev, ad
}

// TestUpgradeFigures checks the upgrade figures against upgradeRun's
// known answer, and that a network stalled during an upgrade is counted
// (the check fails).
func TestUpgradeFigures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stall bool
		want  map[string]float64 // run-wide
		perA  map[string]float64
		perB  map[string]float64
	}{
		{"rolling", false,
			map[string]float64{"upgrades": 2, "upgrade_downtime_max_s": 2.5, "upgrade_catch_up_max_s": 1.8, "upgrade_network_stalls": 0, "upgrade_mixed_version_s": 6},
			// a: downtime 7.5 − 5.0; catch-up 7.8 − 6.0 (7 is the tip at 7.8 s);
			// the others went from 5 (at 5 s) to 7 (at 7.5 s).
			map[string]float64{"upgrade_downtime_s": 2.5, "upgrade_catch_up_s": 1.8, "upgrade_network_heights": 2},
			// b: downtime 11.5 − 10.1; catch-up 11.5 − 11.0; 10 → 11.
			map[string]float64{"upgrade_downtime_s": 1.4, "upgrade_catch_up_s": 0.5, "upgrade_network_heights": 1}},
		{"stalled", true,
			map[string]float64{"upgrades": 2, "upgrade_downtime_max_s": 2.5, "upgrade_catch_up_max_s": 1.5, "upgrade_network_stalls": 1, "upgrade_mixed_version_s": 6},
			// a: at 7.5 s the others are still at 4, as at 5 s: 0 new heights;
			// its first commit (6) is above their tip, so it is caught up then.
			map[string]float64{"upgrade_downtime_s": 2.5, "upgrade_catch_up_s": 1.5, "upgrade_network_heights": 0},
			map[string]float64{"upgrade_downtime_s": 1.4, "upgrade_catch_up_s": 0.5, "upgrade_network_heights": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, ad := upgradeRun(tc.stall)
			b := &builder{s: &Summary{Metrics: map[string]float64{}}}
			eventFigures(Input{Events: ev, Adoption: ad}, b, 0)
			for id, v := range tc.want {
				if got, ok := b.s.Metrics[id]; !ok || math.Abs(got-v) > 1e-9 {
					t.Errorf("%s = %v (%v), want %v", id, got, ok, v)
				}
			}
			for i, per := range []map[string]float64{tc.perA, tc.perB} {
				p := b.s.Perturbations[i]
				for id, v := range per {
					if got, ok := p.Figures[id]; !ok || math.Abs(got-v) > 1e-9 {
						t.Errorf("%s %s = %v (%v), want %v", p.Node, id, got, ok, v)
					}
				}
			}
			ups := UpgradesOf(ev, ad)
			if len(ups) != 2 || ups[0].From != "v1.0.0" || ups[1].To != "v1.0.1" {
				t.Errorf("UpgradesOf = %+v, want a and b from v1.0.0 to v1.0.1", ups)
			}
		})
	}
}

// TestUpgradeShortGap: an upgrade whose downtime (1.4 s, b's) saw no new
// height from the others, with blocks 1 s apart, is an ordinary gap
// between blocks, not a stall; 2 intervals without one would be.
func TestUpgradeShortGap(t *testing.T) {
	ev, ad := upgradeRun(false)
	for i := range ad {
		if a := &ad[i]; a.Height == 11 && a.Node != "b" {
			a.At += 600e6 // the others commit 11 at 11.6 s, after b's first commit
		}
	}
	ups := UpgradesOf(ev, ad)
	if len(ups) != 2 || ups[1].NetworkHeights != 0 || ups[1].Stalled {
		t.Fatalf("b's upgrade: %d heights, stalled %v: want 0 heights, not a stall (%d upgrades)", ups[1].NetworkHeights, ups[1].Stalled, len(ups))
	}
	ev, ad = upgradeRun(true)
	if ups := UpgradesOf(ev, ad); !ups[0].Stalled {
		t.Errorf("a's upgrade: 2.5 s without a new height, blocks 1 s apart: want a stall")
	}
}

// TestMixedVersionOpen: an upgrade that never ended leaves the
// mixed-version period unknown, with a note.
func TestMixedVersionOpen(t *testing.T) {
	ev, ad := upgradeRun(false)
	ev = ev[:len(ev)-1] // b's perturb-end never came
	if v := MixedVersionS(UpgradesOf(ev, ad)); !math.IsNaN(v) {
		t.Errorf("MixedVersionS = %v, want NaN", v)
	}
}
