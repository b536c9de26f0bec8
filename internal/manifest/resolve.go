package manifest

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/shape"
)

// Resolved is the testnet and load that run: every default applied, nodes
// expanded and ordered, durations parsed and config overrides flattened.
// Build one with [Manifest.Resolve]; write it with [Encode].
type Resolved struct {
	// Name names the testnet in reports.
	Name string
	// CometBFTVersion is the release nodes without their own version run;
	// "" when CometBFTBinary is set.
	CometBFTVersion string
	// CometBFTBinary is the user's cometbft binary; "" to fetch
	// CometBFTVersion.
	CometBFTBinary string
	// CometBFTSource is the source tree or the patched release nodes
	// without their own version run; nil for a release as the module proxy
	// serves it. With a tree, CometBFTVersion is the release it derives
	// from (see [cometbft.ReadTree]).
	CometBFTSource *cometbft.Source
	// App is the ABCI application: [AppKVStore], [AppE2E] or
	// [AppExternal].
	App string
	// AppConfig holds the app's settings: the e2e app's app.toml keys
	// (defaults applied), or an external app's command ([]any of strings)
	// and abci ("socket" or "grpc"); nil for the kvstore.
	AppConfig map[string]any
	// LogLevel is CometBFT's log_level for every node.
	LogLevel string
	// Links is "direct" or "relay" (auto resolved).
	Links string
	// Topology is "mesh", "seeds" or "as-written" (see
	// [Manifest.Topology]); under the last two every node's Seeds and
	// PersistentPeers are resolved.
	Topology string
	// Config holds the testnet's config.toml overrides keyed by dotted path
	// ("mempool.size"); values keep their TOML types (int64, float64, bool,
	// string, time types, []any). Never nil.
	Config map[string]any
	// Nodes are the nodes: validators by name, then full nodes by name, then
	// seeds by name, then the [rotate] ephemeral nodes.
	Nodes []Node
	// Load is the load driven into the testnet.
	Load Workload
	// Perturbations are the [perturb.NODE] tables, by node name.
	Perturbations []Perturbation
	// ValidatorUpdates are the [validator_update.HEIGHT] entries, by
	// height then node; none without.
	ValidatorUpdates []ValidatorUpdate
	// Evidence is the number of duplicate-vote evidences injected during
	// the load (the evidence key); 0 for none.
	Evidence int
	// KeyType is the validators' key type (CometBFT's name, see
	// [Manifest.KeyType]).
	KeyType string
	// PBTSEnableHeight is pbts_enable_height (see
	// [Manifest.PBTSEnableHeight]): 0 for BFT time.
	PBTSEnableHeight int64
	// DOG is the mempool's DOG gossip (see [Manifest.DOG]); nil when off.
	DOG *DOG
	// LibP2P runs the nodes on go-libp2p (see [Manifest.LibP2P]).
	LibP2P bool
	// Mempool is the testnet's mempool key when it is not flood ("" for
	// flood) and AdaptiveSync its adaptive_sync key; each node's own are
	// its Mempool and AdaptiveSync.
	Mempool      string
	AdaptiveSync bool
	// Partition is the [partition] table; nil without a partition.
	Partition *Partition
	// Rotate is the [rotate] table; nil when rotation is off.
	Rotate *Rotation
	// Zones is the [zones] table; nil without zones. Each node's Zone is
	// one of its matrix's zones (ephemeral nodes have none).
	Zones *Zones
	// Sentinel is the [sentinel] table; nil when the load goes to the
	// target directly.
	Sentinel *ManifestSentinel
	// TimeScale is k of time_scale (1 when unset): the testnet runs k
	// times slower than real time, as the model it stands for (see
	// [Manifest.TimeScale] and [Resolved.HostTime]). Every value of
	// Resolved is the model's; HostTime gives what the host runs.
	TimeScale float64
	// TimeScaleAuto is time_scale = "auto": k is chosen from a probe of
	// the host before the run (TimeScale is 1 until then; WithTimeScale
	// sets the choice).
	TimeScaleAuto bool
	// atHost marks a HostTime view, which Encode refuses.
	atHost bool
	// Hosts are the [host.NAME] tables by name; none for a local testnet.
	// Every node then has a Host (see `cometlab deploy`).
	Hosts []Host
	// Source names the file format the manifest was read from when it was
	// not cometlab's own ("" when it was), e.g. "the CometBFT e2e manifest
	// ci.toml"; Warnings are the keys --lenient let through, each
	// "FILE:LINE:COL: KEY: REASON". [Encode] writes both as comments.
	Source   string
	Warnings []string
}

// Node is one resolved node.
type Node struct {
	// Name is the node's name, [a-z0-9_-]+.
	Name string
	// Mode is "validator", "full" or "seed".
	Mode string
	// Power is the voting power: >= 1 for validators, 0 otherwise.
	Power int64
	// Version is the CometBFT release the node runs; "" means it runs the
	// testnet's CometBFTBinary. With a Source tree, the release the tree
	// derives from, whose line's capabilities it has.
	Version string
	// Source is the source tree or patched release the node's binaries
	// are built from; nil for the release Version as served.
	Source *cometbft.Source
	// Config is the testnet's Config merged with the node's own overrides
	// (the node's win), keyed by dotted path. Never nil.
	Config map[string]any
	// Ephemeral marks a [rotate] node: started during the load, not with
	// the testnet, and no other node's peer.
	Ephemeral bool
	// Absent marks a validator of the absent key: in the genesis, never
	// started, and no other node's peer.
	Absent bool
	// StartAt is the height the testnet reaches before the node starts
	// (see [ManifestNode.StartAt]); 0 for a node that starts with it.
	StartAt int64
	// StateSync marks a late node that joins by state sync (see
	// [ManifestNode.StateSync]).
	StateSync bool
	// TwinOf is the validator whose signing key the node holds too (see
	// [ManifestNode.TwinOf]); "" for a node that is no twin. A twin's Mode
	// is "full": it is not in the genesis.
	TwinOf string
	// ClockSkew is the offset of the node's clock (see
	// [ManifestNode.ClockSkew]); 0 for none.
	ClockSkew time.Duration
	// App holds the node's own e2e app settings (see [ManifestNode.App]),
	// which override the testnet's AppConfig in its app.toml; nil for none.
	App map[string]any
	// Mempool is the node's mempool type when it is not flood:
	// [cometbft.MempoolApp] or [cometbft.MempoolNop] (see
	// [Manifest.Mempool]); "" for flood.
	Mempool string
	// AdaptiveSync: the node runs blocksync.adaptive_sync (see
	// [Manifest.AdaptiveSync]).
	AdaptiveSync bool
	// Zone is the node's zone of Resolved.Zones; "" without zones.
	Zone string
	// Host is the name of the node's host of Resolved.Hosts; "" for a
	// local testnet.
	Host string
	// Seeds and PersistentPeers name the nodes this node has as seeds
	// and persistent peers (config.toml's p2p.seeds and
	// p2p.persistent_peers), resolved from the topology; both nil under
	// the mesh, which the node homes wire themselves.
	Seeds, PersistentPeers []string
}

// Workload is the resolved load description, the [load] table. (It is not
// called Load because [Load] reads a manifest file.)
type Workload struct {
	// Connections is c, the number of websocket connections.
	Connections int
	// Rate is r, in tx/s per connection.
	Rate float64
	// Size is s, in bytes per transaction.
	Size int
	// Duration is T, how long load is sent.
	Duration time.Duration
	// Pacing is "even" or "burst".
	Pacing string
	// Target is the name of the node that receives the load.
	Target string
	// DrainTimeout is how long to wait for the mempools to empty after the
	// load.
	DrainTimeout time.Duration
	// LateThreshold is how far behind schedule a send counts as late.
	LateThreshold time.Duration
	// Shape is the load's shape without its Rate and Duration (see
	// [Workload.Spec]); the zero value is the constant shape.
	Shape shape.Spec
	// TraceFile is the absolute path of the trace of a trace shape.
	TraceFile string
	// TxsFile is the absolute path of the user's own transactions; ""
	// for loadtime payloads.
	TxsFile string
	// Sync sends with broadcast_tx_sync, so that every reply is CheckTx's
	// verdict (app = "sdk" sets it: a wrong sequence is a rejection with
	// its reason, not a transaction gone missing); broadcast_tx_async
	// otherwise.
	Sync bool
	// Clients are the [[load.client]] tables, in manifest order; none
	// for a single client. With clients, Connections is their sum and
	// Rate the mean per connection (see [Workload.Client]).
	Clients []Client
	// Hosts are the load hosts by name (Resolved.Hosts); none when the
	// load is sent from the control host. See [Workload.HostShares].
	Hosts []string
	// Lanes are the mempool lanes the transactions ask for, by id, with
	// their weights ([load] lane_weights); none for the default lane.
	Lanes []payload.LaneWeight
}

// ExpectedTxs returns the number of transactions the load should send:
// for the constant shape c × r × T (T in seconds), rounded down, the
// product first rounded to a millionth of a transaction, so that floating
// point does not make 4.35 tx/s for 100 s come to 434; for any other shape
// the count of its schedule, ⌊Λ(T)⌋ (see shape.Schedule).
func (l Workload) ExpectedTxs() int64 {
	if len(l.Clients) > 0 {
		var n int64
		for i := range l.Clients {
			n += l.Client(i).ExpectedTxs()
		}
		return n
	}
	if !l.Shape.IsConstant() {
		s, err := shape.New(l.Spec(), l.Connections)
		if err != nil {
			return 0
		}
		return int64(min(s.Count(), math.MaxInt64))
	}
	v := float64(l.Connections) * l.Rate * l.Duration.Seconds()
	v = math.Floor(math.Round(v*1e6) / 1e6)
	switch {
	case !(v > 0):
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

// Validate checks every value of m and returns all problems at once, joined
// with [errors.Join]; each is an [*Error] naming the file, line and key, or
// the flag that set the value. It returns nil when [Manifest.Resolve] would
// succeed.
func (m *Manifest) Validate() error {
	_, err := m.Resolve()
	return err
}

// Resolve validates m (see [Manifest.Validate]) and returns the testnet and
// load it describes: defaults applied, validator01…validatorNN generated
// when there are no [node.*] tables, nodes ordered validators, full nodes,
// seeds (each by name), durations parsed, config overrides flattened and
// merged into each node's, and the load target defaulted to the first
// validator.
func (m *Manifest) Resolve() (Resolved, error) {
	ps := &problems{m: m}
	r := Resolved{
		Name:            m.Name,
		CometBFTVersion: m.CometBFTVersion,
		CometBFTBinary:  m.CometBFTBinary,
		LogLevel:        m.LogLevel,
		Source:          m.source,
		Warnings:        slices.Clone(m.warnings),
	}
	if m.Name == "" {
		ps.add(f("name"), "must not be empty")
	}
	if m.CometBFTVersion == "" && m.CometBFTBinary == "" && m.CometBFTSource == "" {
		ps.add(f("cometbft_version"), "must be set when cometbft_binary and cometbft_source are empty")
	} else if msg := checkVersion(m.CometBFTVersion); m.CometBFTVersion != "" && msg != "" {
		ps.add(f("cometbft_version"), "%s", msg)
	}
	if m.CometBFTBinary != "" {
		r.CometBFTVersion = ""
	}
	if _, declared := m.pos["cometbft_version"]; declared && m.CometBFTVersion != "" && m.CometBFTSource != "" {
		ps.add(f("cometbft_source"), "a tree's release is read from its version file: set cometbft_version or cometbft_source, not both")
	}
	r.CometBFTSource, r.CometBFTVersion = m.sourceOf(ps, nil, m.CometBFTSource, m.CometBFTPatches, r.CometBFTVersion, r.CometBFTBinary)
	if msg := checkValidators(m.Validators); msg != "" {
		ps.add(f("validators"), "%s", msg)
	}
	r.Config = flatConfig(ps, []string{"config"}, m.Config)
	r.Nodes = m.resolveNodes(ps, r.Config, r.CometBFTVersion, r.CometBFTSource)
	m.resolveAbsent(ps, r.Nodes)
	m.resolveStartAt(ps, r.Nodes)
	m.resolveTwins(ps, r.Nodes)
	r.Evidence = m.resolveEvidence(ps, r.Nodes, r.CometBFTBinary)
	r.App, r.AppConfig = m.resolveApp(ps, r.Nodes, r.CometBFTBinary)
	m.resolveNodeApp(ps, r.Nodes, r.App)
	m.resolveStateSync(ps, r.Nodes, r.App, r.AppConfig)
	rot, ephemeral := m.resolveRotate(ps, r.CometBFTVersion)
	for i := range ephemeral {
		ephemeral[i].Config = maps.Clone(r.Config)
		ephemeral[i].Source = r.CometBFTSource
	}
	r.Rotate = rot
	r.Nodes = append(r.Nodes, ephemeral...)
	r.Load = m.resolveLoad(ps, r.Nodes)
	r.Perturbations = m.resolvePerturbations(ps, r.Nodes, r.Load.Duration, r.App)
	r.Partition = m.resolvePartition(ps, r.Nodes, r.Load.Duration)
	m.resolveClockSkew(ps, r.Nodes, r.Perturbations)
	r.KeyType = m.resolveKeyType(ps, &r)
	r.PBTSEnableHeight = m.resolvePBTS(ps, &r)
	m.resolveMempool(ps, &r)
	m.resolveLanes(ps, &r)
	m.resolveSDK(ps, &r)
	r.ValidatorUpdates = m.resolveValidatorUpdates(ps, &r)
	r.Zones = m.resolveZones(ps, r.Nodes)
	r.Sentinel = m.resolveSentinel(ps)
	m.resolveTimeScale(ps, &r)
	r.DOG = m.resolveDOG(ps, &r)
	r.Topology = m.resolveTopology(ps, r.Nodes)
	r.Links = m.resolveLinks(ps, r.Nodes, r.Perturbations, r.Partition != nil, r.Zones != nil && len(m.Hosts) == 0) // on hosts zones are labels
	r.LibP2P = m.resolveLibP2P(ps, &r)
	m.checkRelayedTopology(ps, r)
	m.checkPEX(ps, r)
	r.Hosts = m.resolveHosts(ps, &r)
	if err := ps.err(); err != nil {
		return Resolved{}, err
	}
	return r, nil
}

// f returns its arguments: a dotted path's parts.
func f(parts ...string) []string { return parts }

// nodeName is what a node name may be.
var nodeName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// modeRank orders nodes by mode in Resolved.Nodes.
var modeRank = map[string]int{ModeValidator: 0, ModeFull: 1, ModeSeed: 2}

func (m *Manifest) resolveNodes(ps *problems, config map[string]any, version string, src *cometbft.Source) []Node {
	if len(m.Nodes) == 0 {
		if checkValidators(m.Validators) != "" {
			return nil
		}
		width := max(2, len(strconv.Itoa(m.Validators)))
		nodes := make([]Node, m.Validators)
		for i := range nodes {
			nodes[i] = Node{
				Name:    fmt.Sprintf("validator%0*d", width, i+1),
				Mode:    ModeValidator,
				Power:   1,
				Version: version,
				Source:  src,
				Config:  maps.Clone(config),
			}
		}
		return nodes
	}
	var nodes []Node
	validators, badModes := 0, 0
	for _, name := range slices.Sorted(maps.Keys(m.Nodes)) {
		mn := m.Nodes[name]
		n := Node{Name: name, Mode: mn.Mode, Version: version, Source: src}
		if !nodeName.MatchString(name) {
			ps.add(f("node", name), "invalid node name (want [a-z0-9_-]+)")
		}
		if n.Mode == "" {
			n.Mode = ModeValidator
			if mn.TwinOf != "" {
				n.Mode = ModeFull // not in the genesis: its validator is
			}
		}
		if _, ok := modeRank[n.Mode]; !ok {
			badModes++
			ps.add(f("node", name, "mode"), "invalid mode %q (want %q, %q or %q)", n.Mode, ModeValidator, ModeFull, ModeSeed)
		}
		switch {
		case n.Mode == ModeValidator:
			validators++
			n.Power = 1
			if mn.Power != nil {
				n.Power = *mn.Power
				if n.Power < 1 {
					ps.add(f("node", name, "power"), "must be >= 1 for a validator, got %d", n.Power)
				}
			}
		case mn.Power != nil && mn.TwinOf != "":
			ps.add(f("node", name, "power"), "a twin signs with %s's key and power: leave power unset", mn.TwinOf)
		case mn.Power != nil:
			ps.add(f("node", name, "power"), "only validators have voting power (mode is %q)", n.Mode)
		}
		if mn.CometBFTVersion != "" {
			n.Version, n.Source = mn.CometBFTVersion, nil
			if msg := checkVersion(mn.CometBFTVersion); msg != "" {
				ps.add(f("node", name, "cometbft_version"), "%s", msg)
			}
		}
		m.resolveNodeSource(ps, name, &n)
		n.Config = mergeConfig(ps, f("node", name, "config"), config, flatConfig(ps, f("node", name, "config"), mn.Config))
		nodes = append(nodes, n)
	}
	if validators == 0 && badModes == 0 {
		ps.add(f("node"), "no validator: at least one node needs mode = %q", ModeValidator)
	}
	slices.SortStableFunc(nodes, func(a, b Node) int {
		return cmp.Or(cmp.Compare(modeRank[a.Mode], modeRank[b.Mode]), cmp.Compare(a.Name, b.Name))
	})
	return nodes
}

func (m *Manifest) resolveLoad(ps *problems, nodes []Node) Workload {
	ml := m.Load
	l := Workload{Connections: ml.Connections, Rate: ml.Rate, Size: ml.Size, Pacing: ml.Pacing, Target: ml.Target}
	if msg := checkConnections(ml.Connections); msg != "" {
		ps.add(f("load", "connections"), "%s", msg)
	}
	if msg := checkRate(ml.Rate); msg != "" {
		ps.add(f("load", "rate"), "%s", msg)
	}
	if msg := checkSize(ml.Size); msg != "" {
		ps.add(f("load", "size"), "%s", msg)
	}
	l.Duration = duration(ps, f("load", "duration"), ml.Duration, false)
	l.DrainTimeout = duration(ps, f("load", "drain_timeout"), ml.DrainTimeout, true)
	l.LateThreshold = duration(ps, f("load", "late_threshold"), ml.LateThreshold, false)
	if msg := checkPacing(ml.Pacing); msg != "" {
		ps.add(f("load", "pacing"), "%s", msg)
	}
	m.resolveShape(ps, &l)
	m.resolveClients(ps, &l)
	if l.Target == "" {
		for _, n := range nodes {
			if n.Mode == ModeValidator && !n.Absent {
				l.Target = n.Name
				break
			}
		}
		return l
	}
	i := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == l.Target })
	switch {
	case i < 0 && len(nodes) > 0:
		ps.add(f("load", "target"), "no node named %q", l.Target)
	case i >= 0 && nodes[i].Mode == ModeSeed:
		ps.add(f("load", "target"), "node %q is a seed; seeds take no transactions", l.Target)
	case i >= 0 && nodes[i].Ephemeral:
		ps.add(f("load", "target"), "node %q is a [rotate] ephemeral node, down most of the time", l.Target)
	case i >= 0 && nodes[i].Absent:
		ps.add(f("load", "target"), "node %q is absent (never started)", l.Target)
	}
	return l
}
