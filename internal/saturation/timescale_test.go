package saturation

import "testing"

// TestEvidenceToModel: evidence gathered in a time-scaled run's host time
// (k = 4) is turned into the model's: the rate ×4, the duration, the
// trend's window and the drain ÷4, the slope as it is; at k = 1 nothing
// changes.
func TestEvidenceToModel(t *testing.T) {
	host := func() Evidence {
		return Evidence{Connections: 1, Rate: 12.5, DurationS: 240, Trend: &Trend{Slope: 0.01, Low: 0, High: 0.02, Points: 50, FromS: 48, ToS: 192},
			Drain: &Drain{Seconds: 8, Drained: true, Source: DrainFromRPC}}
	}
	ev := host()
	ev.toModel(4)
	if ev.Rate != 50 || ev.DurationS != 60 || ev.Trend.FromS != 12 || ev.Trend.ToS != 48 || ev.Trend.Slope != 0.01 || ev.Drain.Seconds != 2 {
		t.Errorf("k = 4: %+v, trend %+v, drain %+v", ev, *ev.Trend, *ev.Drain)
	}
	one := host()
	one.toModel(1)
	if one.Rate != 12.5 || one.Drain.Seconds != 8 || one.Trend.ToS != 192 {
		t.Errorf("k = 1 changed the evidence: %+v", one)
	}
}
