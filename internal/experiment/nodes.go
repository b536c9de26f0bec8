package experiment

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/links"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
)

// testnetSpec turns a resolved manifest into what cometbft.Generate takes:
// one binary per release (fetched once each) or the user's binary, and
// each node's release so that a mixed network gets a genesis every node
// reads.
func testnetSpec(ctx context.Context, m manifest.Resolved, f *cometbft.Fetcher, chainID string) (cometbft.Spec, error) {
	spec := cometbft.Spec{ChainID: chainID, App: m.App, LogLevel: m.LogLevel, AppConfig: m.AppConfig,
		Listed: m.Topology != manifest.TopologyMesh, TimeScale: m.TimeScale, KeyType: m.KeyType, PBTSEnableHeight: m.PBTSEnableHeight, LibP2P: m.LibP2P}
	spec.ValidatorUpdates = validatorUpdates(m.ValidatorUpdates)
	progs := programs{ctx: ctx, f: f}
	if m.App == cometbft.AppSDK {
		return sdkSpec(ctx, m, f, spec)
	}
	for _, n := range m.Nodes {
		v, bin := n.Version, m.CometBFTBinary
		if v == "" && bin == "" {
			v = m.CometBFTVersion
		}
		// A skewed node runs its release built with the clock_skew tag
		// (the manifest allows it on releases that have it only).
		node, e2e := cometbft.NodeProgram, cometbft.E2ENodeProgram
		if n.ClockSkew != 0 {
			node, e2e = cometbft.ClockSkewProgram, cometbft.ClockSkewE2EProgram
		}
		// A key type behind a build tag (bls12_381) needs every program
		// of the node built with it; a validator's key of a type `cometbft
		// init` does not make is made by the keygen of its release.
		key, _ := cometbft.KeyTypeOf(v, m.KeyType)
		node, e2e = node.ForKey(key), e2e.ForKey(key)
		var keygen string
		var src *cometbft.SourceRecord
		if v != "" {
			var err error
			if bin, src, err = progs.get(v, n.Source, node); err != nil {
				return spec, err
			}
			if n.Mode == manifest.ModeValidator && m.KeyType != "" && m.KeyType != cometbft.KeyEd25519 {
				if keygen, _, err = progs.get(v, n.Source, cometbft.KeygenProgram.ForKey(key)); err != nil {
					return spec, err
				}
			}
		} else if err := cometbft.CheckBinary(bin); err != nil {
			return spec, err
		}
		var app string
		if m.App == cometbft.AppE2E && v != "" {
			var err error
			if app, _, err = progs.get(v, n.Source, e2e); err != nil {
				return spec, err
			}
		}
		cfg, appCfg := mempoolSettings(n, m.App)
		spec.Nodes = append(spec.Nodes, cometbft.NodeSpec{Name: n.Name, Mode: n.Mode, Power: n.Power,
			Version: v, Binary: bin, Source: src, Config: nodeConfig(m, cfg), AppBinary: app, Ephemeral: n.Ephemeral, Absent: n.Absent, StartAt: n.StartAt, StateSync: n.StateSync,
			Seeds: n.Seeds, PersistentPeers: n.PersistentPeers, TwinOf: n.TwinOf, ClockSkew: n.ClockSkew, App: appCfg, Keygen: keygen})
	}
	for _, p := range m.Perturbations {
		if p.Action != manifest.ActionUpgrade || spec.Upgrades[p.UpgradeTarget()] != "" {
			continue
		}
		b, err := upgradeProgram(ctx, f, m, p, &spec)
		if err != nil {
			return spec, err
		}
		if spec.Upgrades == nil {
			spec.Upgrades = map[string]string{}
		}
		spec.Upgrades[p.UpgradeTarget()] = b
	}
	return spec, nil
}

// validatorUpdates is the manifest's validator updates by height and node
// (nil without any).
func validatorUpdates(us []manifest.ValidatorUpdate) map[int64]map[string]int64 {
	var out map[int64]map[string]int64
	for _, u := range us {
		if out == nil {
			out = map[int64]map[string]int64{}
		}
		if out[u.Height] == nil {
			out[u.Height] = map[string]int64{}
		}
		out[u.Height][u.Node] = u.Power
	}
	return out
}

// programs fetches the programs of a testnet's nodes, each (program,
// release or source) once.
type programs struct {
	ctx   context.Context
	f     *cometbft.Fetcher
	built map[cometbft.Program]map[string]programBuild
}

// programBuild is one built program: its path, and its source tree's
// record when built from one.
type programBuild struct {
	path string
	src  *cometbft.SourceRecord
}

// get returns prog of release v, or of the source tree src when not nil.
func (p *programs) get(v string, src *cometbft.Source, prog cometbft.Program) (string, *cometbft.SourceRecord, error) {
	key := v
	if src != nil {
		key = fmt.Sprintf("%#v", *src)
	}
	if b, ok := p.built[prog][key]; ok {
		return b.path, b.src, nil
	}
	var b programBuild
	var err error
	if src != nil {
		var rec cometbft.SourceRecord
		b.path, rec, err = p.f.SourceProgram(p.ctx, *src, prog)
		b.src = &rec
	} else {
		b.path, err = p.f.Program(p.ctx, v, prog)
	}
	if err != nil {
		return "", nil, err
	}
	if p.built == nil {
		p.built = map[cometbft.Program]map[string]programBuild{}
	}
	if p.built[prog] == nil {
		p.built[prog] = map[string]programBuild{}
	}
	p.built[prog][key] = b
	return b.path, b.src, nil
}

// sdkSpec is testnetSpec for app = "sdk": every node runs cometlab's SDK
// chain (CometBFT in-process, of the SDK line's release), built once from
// the sdkchain/ directory, and the genesis funds the load's accounts. With
// sdk_binary every node runs the user's chain's daemon instead, which
// must link the CometBFT line the manifest says; cometlab's chain is then
// the tool that writes the genesis and signs the load for that chain.
func sdkSpec(ctx context.Context, m manifest.Resolved, f *cometbft.Fetcher, spec cometbft.Spec) (cometbft.Spec, error) {
	sdk := manifest.SDKOf(m.AppConfig)
	bin, rec, err := f.OwnSDKChain(ctx, sdk.Version)
	if err != nil {
		return spec, err
	}
	spec.SDKAccounts = sdk.Accounts
	spec.SDK = cometbft.SDKSpec{Prefix: sdk.Prefix, Denom: sdk.Denom}
	version, source := manifest.SDKVersions[sdk.Version], rec.Source
	if sdk.Binary != "" {
		if err := checkLinkedCometBFT(sdk.Binary, m.CometBFTVersion); err != nil {
			return spec, err
		}
		spec.SDK.Tool, spec.SDK.UserChain = bin, true
		bin, version, source = sdk.Binary, m.CometBFTVersion, nil
	}
	for _, n := range m.Nodes {
		cfg, _ := mempoolSettings(n, m.App)
		spec.Nodes = append(spec.Nodes, cometbft.NodeSpec{Name: n.Name, Mode: n.Mode, Power: n.Power, Version: version,
			Binary: bin, Source: source, Config: nodeConfig(m, cfg), Ephemeral: n.Ephemeral, Absent: n.Absent, StartAt: n.StartAt,
			Seeds: n.Seeds, PersistentPeers: n.PersistentPeers, TwinOf: n.TwinOf, ClockSkew: n.ClockSkew})
	}
	return spec, nil
}

// checkLinkedCometBFT says why the daemon at path cannot run as nodes of
// CometBFT version (the manifest's cometbft_version): it links no
// CometBFT, or one of another release line, whose config.toml differs.
func checkLinkedCometBFT(path, version string) error {
	linked, _, err := cometbft.LinkedCometBFT(path)
	if err != nil {
		return fmt.Errorf("app.sdk_binary: %w", err)
	}
	want, err := cometbft.LineOf(version)
	if err != nil {
		return err
	}
	if got, err := cometbft.LineOf(linked); err != nil || got.Prefix != want.Prefix {
		return fmt.Errorf("app.sdk_binary: %s links CometBFT %s, and cometbft_version is %s: set cometbft_version = %q", path, linked, version, linked)
	}
	return nil
}

// upgradeProgram builds the cometbft an upgrade p starts its node with:
// its release's, or its tree's (whose record joins spec.UpgradeSources).
func upgradeProgram(ctx context.Context, f *cometbft.Fetcher, m manifest.Resolved, p manifest.Perturbation, spec *cometbft.Spec) (string, error) {
	key, _ := cometbft.KeyTypeOf(p.To, m.KeyType)
	prog := cometbft.NodeProgram.ForKey(key)
	if p.ToSource == nil {
		return f.Program(ctx, p.To, prog)
	}
	b, rec, err := f.SourceProgram(ctx, *p.ToSource, prog)
	if err != nil {
		return "", fmt.Errorf("perturb %s: upgrade to_source: %w", cmp.Or(p.Name, p.Node), err)
	}
	if spec.UpgradeSources == nil {
		spec.UpgradeSources = map[string]*cometbft.SourceRecord{}
	}
	spec.UpgradeSources[p.Node] = &rec
	return b, nil
}

// relays sets spec up for m's links: with links = "relay" every directed
// peer link of the mesh gets a relay (package links), or, in the other
// topologies, every node one inbound relay that it advertises (so that
// the addresses the peer exchange hands out are relays too), delayed by
// m's zones; the caller closes them after the nodes stopped and tells
// inbound relays the node processes (SetDiallers); libp2p nodes get one
// UDP relay each, which they advertise. nil for direct links.
func relays(m manifest.Resolved, spec *cometbft.Spec, logger *slog.Logger) *links.Links {
	if m.Links != manifest.LinksRelay {
		return nil
	}
	lk := links.New(logger)
	lk.SetTimeScale(m.TimeScale)
	setZoneDelays(m, lk)
	spec.PortsReserved = func(ports []int) { lk.Avoid(ports...) }
	if m.LibP2P {
		// One datagram relay in front of each node, which it advertises
		// (libp2p's identify then hands out the relay, never the
		// node's own address), in every topology.
		addrs := map[string]string{}
		spec.Advertise = func(to cometbft.Home) (string, error) {
			if a, ok := addrs[to.Name]; ok {
				return a, nil
			}
			a, err := lk.AddUDP(to.Name, fmt.Sprintf("127.0.0.1:%d", to.P2PPort))
			addrs[to.Name] = a
			return a, err
		}
		return lk
	}
	if m.Topology != manifest.TopologyMesh {
		addrs := map[string]string{} // Generate asks for each node's more than once, in one goroutine
		spec.Advertise = func(to cometbft.Home) (string, error) {
			if a, ok := addrs[to.Name]; ok {
				return a, nil
			}
			a, err := lk.AddInbound(to.Name, fmt.Sprintf("127.0.0.1:%d", to.P2PPort))
			addrs[to.Name] = a
			return a, err
		}
		return lk
	}
	spec.Relay = func(from, to cometbft.Home) (string, error) {
		return lk.Add(from.Name, to.Name, fmt.Sprintf("127.0.0.1:%d", to.P2PPort))
	}
	return lk
}

// diallers are the testnet's node processes by pid, for inbound relays
// to name who dialled them.
func diallers(tn *testnet.Testnet) func() map[int]string {
	return func() map[int]string {
		out := map[int]string{}
		for _, n := range tn.Nodes {
			if pid := n.PID(); pid > 0 {
				out[pid] = n.Name
			}
		}
		return out
	}
}

// nodeVersion is the release (or binary, or source) a node of m runs, for
// run.json.
func nodeVersion(m manifest.Resolved, n manifest.Node) string {
	switch {
	case n.Source != nil && n.Source.Tree != "":
		l, _ := cometbft.LineOf(n.Version) // the manifest read it from the tree
		return n.Source.String() + " (" + l.Prefix + ")"
	case n.Source != nil:
		return n.Source.String()
	case n.Version != "":
		return n.Version
	case m.CometBFTBinary != "":
		return "binary " + m.CometBFTBinary
	}
	return m.CometBFTVersion
}

// nodeRecords are the nodes of m's testnet generated as homes, for
// run.json (Home is the absolute home directory), and the RPC endpoints of
// those that run consensus (every mode but seed). Absent validators are
// not nodes of the run: nothing starts, watches or expects them.
func nodeRecords(m manifest.Resolved, homes []cometbft.Home) ([]results.Node, []collect.Endpoint) {
	var nodes []results.Node
	var endpoints []collect.Endpoint
	for i, h := range homes {
		if h.Absent {
			continue
		}
		nodes = append(nodes, results.Node{Name: h.Name, Mode: h.Mode, Version: nodeVersion(m, m.Nodes[i]), RPC: h.RPCAddr(), P2P: h.P2PAddr(),
			Metrics: h.MetricsAddr(), Home: h.Dir, Zone: m.Nodes[i].Zone, Seeds: m.Nodes[i].Seeds, PersistentPeers: m.Nodes[i].PersistentPeers,
			UpgradeTo: upgradeTo(m, h.Name), StartAt: h.StartAt, TwinOf: m.Nodes[i].TwinOf, ClockSkewS: h.ClockSkew.Seconds(),
			App: m.Nodes[i].App, MempoolCapacity: nodeMempoolCapacity(m.Nodes[i], m.Load.Size),
			Mempool: m.Nodes[i].Mempool, AdaptiveSync: m.Nodes[i].AdaptiveSync})
		if h.Mode != cometbft.ModeSeed {
			endpoints = append(endpoints, collect.Endpoint{Name: h.Name, Addr: h.RPCAddr()})
		}
	}
	return nodes, endpoints
}

// mempoolCapacity is how many transactions of size bytes a node of
// config cfg holds in its mempool: mempool.size, or max_txs_bytes / size
// when fewer (CometBFT's defaults where unset).
func mempoolCapacity(cfg map[string]any, size int) int64 {
	n, maxBytes := int64(results.DefaultMempoolSize), int64(results.DefaultMempoolMaxTxsBytes)
	if v, ok := cfg["mempool.size"].(int64); ok {
		n = v
	}
	if v, ok := cfg["mempool.max_txs_bytes"].(int64); ok {
		maxBytes = v
	}
	if size > 0 {
		n = min(n, maxBytes/int64(size))
	}
	return n
}

// nodeMempoolCapacity is node n's mempoolCapacity, or 0 for an app or
// nop mempool, which holds none (the app's own is not bounded by these
// keys).
func nodeMempoolCapacity(n manifest.Node, size int) int64 {
	if n.Mempool != "" {
		return 0
	}
	return mempoolCapacity(n.Config, size)
}

// upgradeTo is the release an upgrade perturbation of m starts node with,
// "" when none does.
func upgradeTo(m manifest.Resolved, node string) string {
	for _, p := range m.Perturbations {
		if p.Node == node && p.Action == manifest.ActionUpgrade {
			return p.UpgradeTarget()
		}
	}
	return ""
}

// started returns the homes of the nodes that start: all but the absent
// validators.
func started(homes []cometbft.Home) []cometbft.Home {
	var out []cometbft.Home
	for _, h := range homes {
		if !h.Absent {
			out = append(out, h)
		}
	}
	return out
}

// absentRecord is run.json's absent: the validators of m in the genesis
// that never start and their voting power; nil when every one runs.
func absentRecord(m manifest.Resolved) *results.Absent {
	var a results.Absent
	for _, n := range m.Nodes {
		a.TotalPower += n.Power
		if n.Absent {
			a.Validators = append(a.Validators, n.Name)
			a.Power += n.Power
		}
	}
	if len(a.Validators) == 0 {
		return nil
	}
	return &a
}

// defaultStartTimeout bounds the wait for a new testnet's nodes to advance
// when the options leave it 0.
const defaultStartTimeout = 90 * time.Second

// waitStarted waits until every node of tn advances (testnet.WaitHealthy)
// for at most timeout, or defaultStartTimeout when timeout is 0.
func waitStarted(ctx context.Context, tn *testnet.Testnet, timeout time.Duration) error {
	if timeout == 0 {
		timeout = defaultStartTimeout
	}
	return tn.WaitHealthy(ctx, timeout)
}

// startLate starts tn's late nodes (start_at), each once the chain has
// its height, and says so on out.
func startLate(ctx context.Context, tn *testnet.Testnet, out *Printer) error {
	late := tn.Late()
	if len(late) == 0 {
		return nil
	}
	for _, n := range late {
		how := ""
		if n.StateSync {
			how = " (state sync)"
		}
		out.Phase("testnet: %s starts when the chain reaches height %d%s", n.Name, n.StartAt, how)
	}
	return tn.StartLate(ctx, func(s testnet.LateStart) {
		how := ""
		if s.TrustHeight > 0 {
			how = fmt.Sprintf(" by state sync (trusted height %d, earliest block stored %d)", s.TrustHeight, s.Earliest)
		}
		out.Phase("testnet: %s started at height %d, caught up to %d after %s%s", s.Node, s.NetworkHeight, s.StartAt, s.CaughtUp.Round(100*time.Millisecond), how)
	})
}

// nodeConfig returns a node's config.toml overrides cfg with those of the
// testnet's features that live in config.toml (DOG) laid over them; the
// manifest refused a node config that sets them itself.
func nodeConfig(m manifest.Resolved, cfg map[string]any) map[string]any {
	if m.DOG == nil {
		return cfg
	}
	out := maps.Clone(cfg)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, m.DOG.Config())
	return out
}

// mempoolSettings returns node n's config.toml overrides and e2e app
// settings with its mempool type and adaptive sync written in: mempool.type
// and blocksync.adaptive_sync, and the e2e app's app_side_mempool beside an
// app mempool (as CometBFT's e2e runner sets it). A flood node without
// adaptive sync keeps its own maps, so its files are as before.
func mempoolSettings(n manifest.Node, app string) (map[string]any, map[string]any) {
	cfg, appCfg := n.Config, n.App
	if n.Mempool != "" || n.AdaptiveSync {
		cfg = maps.Clone(n.Config)
		if cfg == nil {
			cfg = map[string]any{}
		}
	}
	if n.Mempool != "" {
		cfg["mempool.type"] = n.Mempool
	}
	if n.AdaptiveSync {
		cfg["blocksync.adaptive_sync"] = true
	}
	if n.Mempool == cometbft.MempoolApp && app == cometbft.AppE2E {
		appCfg = maps.Clone(n.App)
		if appCfg == nil {
			appCfg = map[string]any{}
		}
		appCfg["app_side_mempool"] = true
	}
	return cfg, appCfg
}
