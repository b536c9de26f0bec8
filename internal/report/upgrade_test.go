package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
)

// TestUpgradeSection: the rolling upgrade's section states its figures,
// says whether the network kept committing (both ways), lists one row
// per upgraded node and no other perturbation, and every upgrade figure
// of the dictionary is in it.
func TestUpgradeSection(t *testing.T) {
	e1, e2 := 6.0, 11.0
	ps := []analysis.PerturbationSummary{
		{Node: "a", Action: analysis.UpgradeAction, Detail: "upgrade 1/1, v1.0.0 → v1.0.1", BeginS: 5, EndS: &e1,
			Figures: map[string]float64{"upgrade_downtime_s": 2.5, "upgrade_catch_up_s": 1.8, "upgrade_network_heights": 2}},
		{Node: "c", Action: "kill", Detail: "kill 1/1, down 5s", BeginS: 7, EndS: &e1, Figures: map[string]float64{}},
		{Node: "b", Action: analysis.UpgradeAction, Detail: "upgrade 1/1, v1.0.0 → v1.0.1", BeginS: 10, EndS: &e2,
			Figures: map[string]float64{"upgrade_downtime_s": 1.4, "upgrade_catch_up_s": 0.5, "upgrade_network_heights": 1}},
	}
	run := map[string]float64{"upgrades": 2, "upgrade_downtime_max_s": 2.5, "upgrade_catch_up_max_s": 1.8, "upgrade_network_stalls": 0, "upgrade_mixed_version_s": 6}
	for _, tc := range []struct {
		name   string
		stalls float64
		want   []string
	}{
		{"kept committing", 0, []string{
			"### Rolling upgrade\n\n2 node(s) were stopped (SIGTERM) and started again on their own home with another release",
			"shared the network for 6.000 s (mixed-version period",
			"- The network **kept committing** through every upgrade",
			"- Longest downtime (SIGTERM to the first commit with the new release) 2.500 s; longest catch-up (start to the tip) 1.800 s.",
			"| upgrade 1/1 a | 5.0 s | 6.0 s | 2.500 s | 1.800 s | 2 blocks |",
			"| upgrade 1/1 b | 10.0 s | 11.0 s | 1.400 s | 0.500 s | 1 blocks |"}},
		{"stalled", 1, []string{"- **The network stopped committing** during 1 upgrade(s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := analysis.Summary{Metrics: map[string]float64{}, Perturbations: ps}
			for k, v := range run {
				s.Metrics[k] = v
			}
			s.Metrics["upgrade_network_stalls"] = tc.stalls
			var b bytes.Buffer
			mdWriter{w: &b}.upgrade(s)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("section lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "kill") || strings.Contains(b.String(), "n/a") {
				t.Errorf("another perturbation or a missing figure in the section:\n%s", b.String())
			}
		})
	}
	for _, m := range analysis.Dictionary() {
		if _, ok := run[m.ID]; strings.HasPrefix(m.ID, "upgrade") && !ok && ps[0].Figures[m.ID] == 0 {
			t.Errorf("%s is not in the section's figures", m.ID)
		}
	}
}
