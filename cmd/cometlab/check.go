package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// newManifestCmd is `cometlab manifest`, with its check subcommand.
func newManifestCmd(st *state) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "manifest",
		Short: "Check a manifest (cometlab's own or a CometBFT e2e one) without running it",
		Args:  cobra.NoArgs,
	}
	var format string
	var lenient bool
	check := &cobra.Command{
		Use:   "check FILE",
		Short: "Resolve a manifest and print what would run, or every key cometlab refuses",
		Long: `Resolve a manifest without building or starting anything and print what would
run: the nodes (name, mode, voting power, release, app, zone), the topology,
the zones, the perturbations and the load; then every warning. A manifest
cometlab will not run prints every refusal, each FILE:LINE:COL: KEY: REASON.

The file is cometlab's own manifest or a CometBFT e2e manifest
(test/e2e/networks in cometbft, testnets in cometbft/qa-infra), detected from
its content unless --format says; docs/e2e-manifests.md maps every e2e key.

Exit codes: 0 it would run; 2 it would not (refusals, bad flags or file).`,
		Example: `  cometlab manifest check testnet.toml
  cometlab manifest check --lenient ci.toml
  cometlab manifest check --format e2e single.toml`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return checkManifest(st.stdout, args[0], manifest.ReadOptions{Format: format, Lenient: lenient})
		},
	}
	registerFormat(check.Flags(), &format, &lenient)
	cmd.AddCommand(check)
	return cmd
}

// checkManifest reads and resolves the manifest at path and prints what
// would run, or the refusals (exit 2).
func checkManifest(w io.Writer, path string, o manifest.ReadOptions) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return exitcode.With(fmt.Errorf("read manifest: %w", err), exitcode.Usage)
	}
	format, reason := manifest.DetectFormat(data)
	if o.Format != "" && o.Format != manifest.FormatAuto {
		format, reason = o.Format, "--format"
	}
	fmt.Fprintf(w, "manifest %s: %s format (%s)\n", path, format, reason)
	m, warnings, err := manifest.Read(path, data, o)
	var r manifest.Resolved
	if err == nil {
		r, err = m.Resolve()
	}
	if err != nil {
		problems := strings.Split(err.Error(), "\n")
		printList(w, "warnings", warnings)
		printList(w, "refused", problems)
		fmt.Fprintln(w, "would not run")
		return exitcode.With(fmt.Errorf("%s: %d problems (listed above)", path, len(problems)), exitcode.Usage)
	}
	printPlan(w, r)
	printList(w, "warnings", warnings)
	fmt.Fprintln(w, "would run")
	return nil
}

// printList prints a titled list, or nothing when it is empty.
func printList(w io.Writer, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (%d):\n", title, len(items))
	for _, s := range items {
		fmt.Fprintf(w, "  %s\n", s)
	}
}

// printPlan prints what the resolved manifest r runs.
func printPlan(w io.Writer, r manifest.Resolved) {
	version := r.CometBFTVersion
	if version == "" {
		version = r.CometBFTBinary
	}
	if r.CometBFTSource != nil {
		version = r.CometBFTSource.String() + " (as " + r.CometBFTVersion + ")"
	}
	fmt.Fprintf(w, "testnet %s: %d nodes, CometBFT %s, app %s%s\n", r.Name, len(r.Nodes), version, r.App, appSettings(r.AppConfig))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tMODE\tPOWER\tVERSION\tAPP\tZONE\tHOST\tCONFIG")
	for _, n := range r.Nodes {
		v := n.Version
		if v == "" {
			v = "binary"
		}
		if n.Source != nil {
			v = n.Source.String() + " (as " + n.Version + ")"
		}
		mode := n.Mode
		if n.Ephemeral {
			mode += " (ephemeral)"
		}
		if n.Absent {
			mode += " (absent)"
		}
		if n.TwinOf != "" {
			mode += fmt.Sprintf(" (twin of %s: signs with its key)", n.TwinOf)
		}
		if n.ClockSkew != 0 {
			mode += fmt.Sprintf(" (clock skewed by %s)", n.ClockSkew)
		}
		if n.StartAt > 0 {
			mode += fmt.Sprintf(" (starts at height %d)", n.StartAt)
			if n.StateSync {
				mode = strings.TrimSuffix(mode, ")") + ", state sync)"
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", n.Name, mode, n.Power, v, r.App, dash(n.Zone), dash(n.Host), dash(configText(n.Config, r.Config)))
	}
	_ = tw.Flush()
	printTopology(w, r)
	if len(r.Config) > 0 {
		fmt.Fprintf(w, "config (every node): %s\n", configText(r.Config, nil))
	}
	if r.Zones != nil {
		fmt.Fprintf(w, "zones: matrix %s, jitter %g, bandwidth %g Mbit/s (0: no limit)\n", r.Zones.Source, r.Zones.Jitter, r.Zones.BandwidthMbps)
	} else {
		fmt.Fprintln(w, "zones: none")
	}
	if len(r.Perturbations) == 0 {
		fmt.Fprintln(w, "perturbations: none")
	}
	for _, p := range r.Perturbations {
		when := "at " + p.At.String() + " after the load starts"
		if p.Height > 0 {
			when = fmt.Sprintf("%s after height %d", p.At, p.Height)
		}
		fmt.Fprintf(w, "perturbation: %s %s %s, down %s, %d× every %s\n", p.Node, p.Action, when, p.Down, p.Count, p.Every)
	}
	for _, u := range r.ValidatorUpdates {
		fmt.Fprintf(w, "validator update: %s power %d at height %d (the set of height %d)\n", u.Node, u.Power, u.Height, u.EffectiveHeight())
	}
	if p := r.Partition; p != nil {
		fmt.Fprintf(w, "partition: %s, at %s after the load starts, for %s\n", p.Describe(), p.At, p.Duration)
	}
	if r.Rotate != nil {
		fmt.Fprintf(w, "rotation: %d ephemeral nodes, dwell %s\n", len(r.Rotate.Nodes), r.Rotate.Dwell)
	}
	if a := r.AbsentNames(); len(a) > 0 {
		fmt.Fprintf(w, "absent: %s in the genesis, never started\n", strings.Join(a, ", "))
	}
	if r.Evidence > 0 {
		fmt.Fprintf(w, "evidence: %d duplicate votes injected during the load\n", r.Evidence)
	}
	if r.Sentinel != nil {
		fmt.Fprintln(w, "sentinel: the load goes through cometlab's sentinel")
	}
	l := r.Load
	fmt.Fprintf(w, "load: %d connections × %g tx/s (%s, %s) of %d B for %s to %s: %d transactions expected\n",
		l.Connections, l.Rate, l.Pacing, l.Spec().String(), l.Size, l.Duration, l.Target, l.ExpectedTxs())
	if r.TimeScaleAuto {
		fmt.Fprintf(w, "time scale: auto: `cometlab run` probes the testnet on this host (seconds of its load at k = 1, then at a larger k while the host is above its %d %% limit) "+
			"and runs at the smallest k of 1, 2, 4, … that keeps it within (docs/timescale.md)\n", analysis.BusyLimitPct)
	}
	if k := r.TimeScale; k != 1 {
		h := r.HostTime().Load
		fmt.Fprintf(w, "time scale: k = %g, %[1]g times slower than real time (the values above are the model's): the host sends %g tx/s a connection for %s, "+
			"with every timeout of the nodes ×%g; figures are reported in model time (docs/timescale.md)\n", k, h.Rate, h.Duration, k)
	}
	if r.Source != "" {
		fmt.Fprintf(w, "read from %s\n", r.Source)
	}
}

// appSettings formats the app's settings, sorted.
func appSettings(cfg map[string]any) string {
	if len(cfg) == 0 {
		return ""
	}
	return " (" + configText(cfg, nil) + ")"
}

// configText formats the settings of cfg that differ from base, sorted.
func configText(cfg, base map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		if b, ok := base[k]; ok && fmt.Sprint(b) == fmt.Sprint(cfg[k]) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s = %v", k, cfg[k]))
	}
	return strings.Join(parts, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printTopology prints the topology: the mesh in a line, the others with
// each node's seeds and persistent peers.
func printTopology(w io.Writer, r manifest.Resolved) {
	if r.Topology == manifest.TopologyMesh {
		absent := ""
		if len(r.AbsentNames()) > 0 {
			absent = ", absent validators no one's"
		}
		fmt.Fprintf(w, "topology: every node a persistent peer of every other (links %s%s)\n", r.Links, absent)
		return
	}
	fmt.Fprintf(w, "topology: %s, peer exchange %s (links %s)\n", r.Topology, onOff(pexOn(r.Config)), r.Links)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NODE\tSEEDS\tPERSISTENT PEERS")
	for _, n := range r.Nodes {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", n.Name, dash(strings.Join(n.Seeds, ",")), dash(strings.Join(n.PersistentPeers, ",")))
	}
	_ = tw.Flush()
}

// pexOn says whether config leaves the peer exchange on (CometBFT's
// default) for the testnet.
func pexOn(config map[string]any) bool {
	pex, ok := config["p2p.pex"].(bool)
	return !ok || pex
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
