package manifest

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/pelletier/go-toml/v2"
)

// encodeHeader starts every file Encode writes.
const encodeHeader = "# cometlab resolved manifest: every default filled in, nodes explicit.\n" +
	"# Parsing this file resolves to the same testnet and load.\n\n"

// encoded is the file layout Encode writes: the Manifest layout without
// validators (nodes are explicit) and with every value present; [load] is
// the Manifest's own table.
type encoded struct {
	Name                string                      `toml:"name"`
	CometBFTVersion     string                      `toml:"cometbft_version"`
	CometBFTBinary      string                      `toml:"cometbft_binary"`
	CometBFTSource      string                      `toml:"cometbft_source,omitempty"`
	CometBFTPatches     []string                    `toml:"cometbft_patches,omitempty"`
	App                 any                         `toml:"app"`
	LogLevel            string                      `toml:"log_level"`
	Links               string                      `toml:"links"`
	Topology            string                      `toml:"topology,omitempty"`
	Absent              []string                    `toml:"absent,omitempty"`
	Evidence            int                         `toml:"evidence,omitempty"`
	TimeScale           any                         `toml:"time_scale,omitempty"`
	KeyType             string                      `toml:"key_type"`
	PBTSEnableHeight    int64                       `toml:"pbts_enable_height,omitempty"`
	DOG                 bool                        `toml:"dog,omitempty"`
	DOGTargetRedundancy float64                     `toml:"dog_target_redundancy,omitempty"`
	DOGAdjustInterval   string                      `toml:"dog_adjust_interval,omitempty"`
	Config              map[string]any              `toml:"config"`
	Load                ManifestLoad                `toml:"load"`
	Nodes               map[string]encodedNode      `toml:"node"`
	Perturb             map[string]encodedPerturb   `toml:"perturb,omitempty"`
	ValidatorUpdate     map[string]map[string]int64 `toml:"validator_update,omitempty"`
	Partition           *ManifestPartition          `toml:"partition,omitempty"`
	Rotate              *ManifestRotate             `toml:"rotate,omitempty"`
	Zones               *ManifestZones              `toml:"zones,omitempty"`
	Sentinel            *ManifestSentinel           `toml:"sentinel,omitempty"`
	Hosts               map[string]ManifestHost     `toml:"host,omitempty"`
	LibP2P              bool                        `toml:"libp2p,omitempty"`
	Mempool             string                      `toml:"mempool,omitempty"`
	AdaptiveSync        bool                        `toml:"adaptive_sync,omitempty"`
}

type encodedPerturb struct {
	Node   string `toml:"node,omitempty"`
	Action string `toml:"action"`
	At     string `toml:"at,omitempty"`
	Height int64  `toml:"height,omitempty"`
	Down   string `toml:"down,omitempty"`
	Every  string `toml:"every,omitempty"`
	Count  int    `toml:"count"`
	To     string `toml:"to,omitempty"`
	// ToSource is an upgrade's tree, absolute; To is then left out (the
	// tree's version file names it).
	ToSource string `toml:"to_source,omitempty"`
}

type encodedNode struct {
	Mode            string         `toml:"mode"`
	Power           int64          `toml:"power,omitempty"`
	CometBFTVersion string         `toml:"cometbft_version,omitempty"`
	CometBFTSource  string         `toml:"cometbft_source,omitempty"`
	CometBFTPatches []string       `toml:"cometbft_patches,omitempty"`
	Config          map[string]any `toml:"config,omitempty"`
	Zone            string         `toml:"zone,omitempty"`
	Host            string         `toml:"host,omitempty"`
	Seeds           []string       `toml:"seeds,omitempty"`
	PersistentPeers []string       `toml:"persistent_peers,omitempty"`
	StartAt         int64          `toml:"start_at,omitempty"`
	StateSync       bool           `toml:"state_sync,omitempty"`
	TwinOf          string         `toml:"twin_of,omitempty"`
	ClockSkew       string         `toml:"clock_skew,omitempty"`
	App             map[string]any `toml:"app,omitempty"`
	Mempool         string         `toml:"mempool,omitempty"`
	AdaptiveSync    *bool          `toml:"adaptive_sync,omitempty"`
}

// Encode writes r as a TOML manifest with every value explicit: all keys,
// every node as a [node.NAME] table, config overrides as quoted dotted keys
// and durations as Go duration strings. A node's config lists only what
// differs from the testnet's [config]. [Parse] of the result resolves to r
// again; this is the run directory's manifest.toml.
func Encode(r Resolved) ([]byte, error) {
	if r.atHost {
		return nil, errors.New("encode manifest: a host-time view (HostTime) is not the model a run records")
	}
	tree, patches := sourceKeys(r.CometBFTSource)
	version := r.CometBFTVersion
	if tree != "" {
		version = "" // the tree's version file tells it
	}
	e := encoded{
		Name:             r.Name,
		CometBFTVersion:  version,
		CometBFTBinary:   r.CometBFTBinary,
		CometBFTSource:   tree,
		CometBFTPatches:  patches,
		App:              appValue(r.App, r.AppConfig),
		LogLevel:         r.LogLevel,
		Links:            r.Links,
		Topology:         encodeTopology(r.Topology),
		Absent:           r.AbsentNames(),
		Evidence:         r.Evidence,
		TimeScale:        encodeTimeScale(r),
		KeyType:          r.KeyType,
		PBTSEnableHeight: r.PBTSEnableHeight,
		Config:           r.Config,
		LibP2P:           r.LibP2P,
		Mempool:          r.Mempool,
		AdaptiveSync:     r.AdaptiveSync,
		Load: ManifestLoad{
			Connections:   r.Load.Connections,
			Rate:          r.Load.Rate,
			Size:          r.Load.Size,
			Duration:      r.Load.Duration.String(),
			Pacing:        r.Load.Pacing,
			Target:        r.Load.Target,
			DrainTimeout:  r.Load.DrainTimeout.String(),
			LateThreshold: r.Load.LateThreshold.String(),
			Hosts:         r.Load.Hosts,
		},
		Nodes:    make(map[string]encodedNode, len(r.Nodes)),
		Zones:    encodeZones(r.Zones),
		Sentinel: r.Sentinel,
		Hosts:    encodeHosts(r.Hosts),
	}
	encodeLoadExtras(&e, r)
	if e.Config == nil {
		e.Config = map[string]any{}
	}
	if p := r.Partition; p != nil {
		e.Partition = &ManifestPartition{Split: p.Split, At: p.At.String(), Duration: p.Duration.String()}
		if p.Split == "" {
			e.Partition.Groups = p.Groups
		}
	}
	if d := r.DOG; d != nil {
		e.DOG, e.DOGTargetRedundancy, e.DOGAdjustInterval = true, d.TargetRedundancy, d.AdjustInterval.String()
	}
	if r.Rotate != nil {
		e.Rotate = &ManifestRotate{Concurrency: len(r.Rotate.Nodes), Dwell: r.Rotate.Dwell.String()}
	}
	if err := encodeNodes(&e, r); err != nil {
		return nil, err
	}
	e.Perturb = encodePerturbs(r.Perturbations)
	body, err := toml.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	var b bytes.Buffer
	b.WriteString(encodeHeader)
	if r.Source != "" {
		fmt.Fprintf(&b, "# Read from %s (docs/e2e-manifests.md maps its keys).\n", r.Source)
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "# warning: %s\n", w)
		}
		b.WriteString("\n")
	}
	b.Write(body)
	return b.Bytes(), nil
}

// encodeTimeScale leaves real time (k = 1), the default, out, so that
// the manifests of unscaled runs stay as they were; "auto" until k is
// chosen (Resolved.WithTimeScale).
func encodeTimeScale(r Resolved) any {
	switch {
	case r.TimeScaleAuto:
		return TimeScaleAuto
	case r.TimeScale == 1:
		return nil
	}
	return r.TimeScale
}

// encodeTopology leaves the mesh, the default, out, so that the manifests
// written before there were topologies stay as they were.
func encodeTopology(t string) string {
	if t == TopologyMesh {
		return ""
	}
	return t
}

// EncodeLoad encodes a manifest of the default testnet with the load l
// (no load hosts, the default target): what a load host's `cometlab load
// --manifest` reads, which takes the [load] table only.
func EncodeLoad(l Workload) ([]byte, error) {
	d := Default()
	r, err := d.Resolve()
	if err != nil {
		return nil, err
	}
	l.Hosts, l.Target = nil, r.Load.Target
	r.Load = l
	return Encode(r)
}

// TestnetKey identifies the testnet r runs on: r without its load,
// encoded. Runs whose keys are equal can share a testnet.
func (r Resolved) TestnetKey() string {
	r.Load = Workload{}
	b, err := Encode(r)
	if err != nil {
		return fmt.Sprint(r)
	}
	return string(b)
}

// sourceKeys are the cometbft_source and cometbft_patches of a source.
func sourceKeys(s *cometbft.Source) (string, []string) {
	if s == nil {
		return "", nil
	}
	return s.Tree, s.Patches
}

// sameSource reports whether a and b are the same source (both nil too).
func sameSource(a, b *cometbft.Source) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Tree == b.Tree && a.Release == b.Release && slices.Equal(a.Patches, b.Patches)
}

// encodeLoadExtras adds to e what of r's load the literal in Encode does
// not hold: its shape, its lanes' weights, the validator updates and its
// clients (which replace the connections and rate).
func encodeLoadExtras(e *encoded, r Resolved) {
	encodeShape(&e.Load, r.Load)
	for _, l := range r.Load.Lanes {
		if e.Load.LaneWeights == nil {
			e.Load.LaneWeights = map[string]uint64{}
		}
		e.Load.LaneWeights[l.ID] = l.Weight
	}
	for _, u := range r.ValidatorUpdates {
		if e.ValidatorUpdate == nil {
			e.ValidatorUpdate = map[string]map[string]int64{}
		}
		h := strconv.FormatInt(u.Height, 10)
		if e.ValidatorUpdate[h] == nil {
			e.ValidatorUpdate[h] = map[string]int64{}
		}
		e.ValidatorUpdate[h][u.Node] = u.Power
	}
	if e.Load.Clients = encodeClients(r.Load.Clients); e.Load.Clients != nil {
		e.Load.Connections, e.Load.Rate = 0, 0
	}
}

// encodeNodes adds r's nodes to e (the ephemeral ones [rotate] makes are
// left out), each with what differs from the testnet's settings.
func encodeNodes(e *encoded, r Resolved) error {
	for _, n := range r.Nodes {
		if n.Ephemeral {
			continue // [rotate] makes them
		}
		if _, dup := e.Nodes[n.Name]; dup {
			return fmt.Errorf("encode manifest: node %q appears twice", n.Name)
		}
		en := encodedNode{Mode: n.Mode, Power: n.Power, Zone: n.Zone, Host: n.Host, StartAt: n.StartAt, StateSync: n.StateSync, TwinOf: n.TwinOf, App: n.App}
		if n.ClockSkew != 0 {
			en.ClockSkew = n.ClockSkew.String()
		}
		if n.Mempool != r.Mempool {
			en.Mempool = cmp.Or(n.Mempool, cometbft.MempoolFlood)
		}
		if n.AdaptiveSync != r.AdaptiveSync {
			en.AdaptiveSync = &n.AdaptiveSync
		}
		if r.Topology == TopologyAsWritten {
			en.Seeds, en.PersistentPeers = n.Seeds, n.PersistentPeers
		}
		if !sameSource(n.Source, r.CometBFTSource) {
			en.CometBFTSource, en.CometBFTPatches = sourceKeys(n.Source)
			if n.Source == nil && n.Version == r.CometBFTVersion {
				en.CometBFTVersion = n.Version // the release itself, not the testnet's tree or patches
			}
		}
		if n.Version != r.CometBFTVersion && (n.Source == nil || n.Source.Tree == "") {
			en.CometBFTVersion = n.Version
		}
		for k, v := range n.Config {
			if base, ok := r.Config[k]; ok && reflect.DeepEqual(base, v) {
				continue
			}
			if en.Config == nil {
				en.Config = map[string]any{}
			}
			en.Config[k] = v
		}
		e.Nodes[n.Name] = en
	}
	return nil
}

// encodePerturbs are r's perturbations as the manifest writes them, by
// name (or node).
func encodePerturbs(ps []Perturbation) map[string]encodedPerturb {
	var out map[string]encodedPerturb
	for _, p := range ps {
		if out == nil {
			out = map[string]encodedPerturb{}
		}
		ep := encodedPerturb{Action: p.Action, Height: p.Height, Count: p.Count, To: p.To}
		if p.ToSource != nil {
			ep.To, ep.ToSource = "", p.ToSource.Tree
		}
		if p.Height == 0 {
			ep.At = p.At.String()
		}
		if p.Action != ActionRestart && p.Action != ActionUpgrade {
			ep.Down = p.Down.String()
		}
		if p.Every > 0 {
			ep.Every = p.Every.String()
		}
		if p.Name != "" {
			ep.Node = p.Node
		}
		out[cmpOr(p.Name, p.Node)] = ep
	}
	return out
}
