package report

import (
	"github.com/cometlab/cometlab/internal/analysis"
)

// upgrade writes "Rolling upgrade": each upgraded node's downtime,
// catch-up and the heights the others committed meanwhile, whether the
// network kept committing, and the mixed-version period (the upgrade_*
// figures); nothing for a run without an upgrade.
func (m mdWriter) upgrade(s analysis.Summary) {
	var ups []analysis.PerturbationSummary
	for _, p := range s.Perturbations {
		if p.Action == analysis.UpgradeAction && p.Node != "" {
			ups = append(ups, p)
		}
	}
	if len(ups) == 0 {
		return
	}
	m.f("### Rolling upgrade\n\n")
	m.f("%s node(s) were stopped (SIGTERM) and started again on their own home with another release (the detail names both); "+
		"validators of both releases shared the network for %s (mixed-version period: the first upgrade's begin to the last one's end).\n\n",
		bareValue(s, "upgrades"), metricValue(s, "upgrade_mixed_version_s"))
	if s.Metrics["upgrade_network_stalls"] == 0 {
		m.f("- The network **kept committing** through every upgrade: no upgraded node's downtime went 2 median block intervals without a new height from the others.\n")
	} else {
		m.f("- **The network stopped committing** during %s upgrade(s): the other nodes committed no new height while the node was down, for 2 median block intervals or more.\n",
			bareValue(s, "upgrade_network_stalls"))
	}
	m.f("- Longest downtime (SIGTERM to the first commit with the new release) %s; longest catch-up (start to the tip) %s.\n\n",
		metricValue(s, "upgrade_downtime_max_s"), metricValue(s, "upgrade_catch_up_max_s"))
	m.perturbationTable(analysis.Summary{Perturbations: ups}, []string{"upgrade_downtime_s", "upgrade_catch_up_s", "upgrade_network_heights"}, true)
}
