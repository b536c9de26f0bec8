package cometbft

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Paths inside a node's home, as CometBFT lays it out.

// ConfigFile is the node's config.toml.
func ConfigFile(home string) string { return filepath.Join(home, "config", "config.toml") }

// GenesisFile is the node's genesis.json.
func GenesisFile(home string) string { return filepath.Join(home, "config", "genesis.json") }

// NodeKeyFile is the node's p2p key, node_key.json.
func NodeKeyFile(home string) string { return filepath.Join(home, "config", "node_key.json") }

// PrivValidatorKeyFile is the node's validator key, priv_validator_key.json.
func PrivValidatorKeyFile(home string) string {
	return filepath.Join(home, "config", "priv_validator_key.json")
}

// Node modes.
const (
	ModeValidator = "validator"
	ModeFull      = "full"
	ModeSeed      = "seed"
)

// NodeSpec is one node to generate.
type NodeSpec struct {
	Name  string
	Mode  string
	Power int64
	// Version is the release the node runs ("" for a user's binary); the
	// genesis is taken from the oldest release's `cometbft init`, so that
	// every node of a mixed network can read it whatever the node order.
	Version string
	Binary  string // cometbft binary for this node's version
	// Source is the provenance of a node built from a source tree or a
	// patched release ([Fetcher.SourceProgram]); nil for a release as
	// served or a user's binary. Generate does not read it.
	Source *SourceRecord
	Config map[string]any // config.toml overrides by dotted key
	// Ephemeral marks a node that comes and goes (a rotating node): it
	// dials the others, but no other node lists it as a peer.
	Ephemeral bool
	// Absent marks a validator that is in the genesis but never started
	// (an absent-stake testnet): its home is generated, and no other node
	// lists it as a peer.
	Absent bool
	// StartAt is the height the testnet reaches before the node starts (a
	// late node, as the e2e runner's start_at): it dials the others when
	// it starts, and no other node lists it as a peer. 0 for the others.
	StartAt int64
	// StateSync makes the late node join by state sync: its config.toml
	// enables it, with the RPC of the nodes that start with the testnet
	// as the light client's servers; [SetStateSyncTrust] writes the
	// trusted height and hash just before it starts.
	StateSync bool
	// AppBinary is the e2e app node binary of this node's version when
	// the spec's App is [AppE2E]; the node runs it instead of Binary
	// (Binary still generates the home).
	AppBinary string
	// Address is the IP address or DNS name of the host the node runs on
	// (a deployed testnet): its listeners bind it, on the fixed ports of
	// [HostPorts], and peers dial it. "" for a local node (loopback, free
	// ports).
	Address string
	// HostHome is the directory the node's home has on its host (a
	// deployed testnet: the e2e app's app.toml names its data directory
	// there); "" for a local node, whose home is where Generate puts it.
	HostHome string
	// Seeds and PersistentPeers name (by node name) the node's seeds and
	// persistent peers when the spec's Listed is set.
	Seeds, PersistentPeers []string
	// TwinOf names the validator whose priv_validator_key.json the node
	// gets (a twin: two processes sign with one key); "" for the others.
	// The node keeps its own priv_validator_state.json.
	TwinOf string
	// ClockSkew offsets the node's clock (Binary must be a
	// [ClockSkewProgram] build); 0 for none.
	ClockSkew time.Duration
	// App holds the node's own e2e app settings, written over the
	// Spec's AppConfig into its app.toml; nil for none.
	App map[string]any
	// Keygen is the [KeygenProgram] binary of the node's release, which
	// makes a validator's key when the spec's KeyType is not ed25519 ("" for
	// ed25519, and for nodes that are no validator).
	Keygen string
}

// Spec is a testnet to generate.
type Spec struct {
	ChainID  string
	App      string // [AppKVStore] or [AppE2E]
	LogLevel string
	Nodes    []NodeSpec
	// Listed, when set, takes each node's Seeds and PersistentPeers as
	// its peers, with the peer exchange on (CometBFT's default, which a
	// node's Config may turn off); unset, every node is a persistent
	// peer of every other that is not ephemeral and every seed a seed of
	// every node (the mesh).
	Listed bool
	// Relay, when set, returns the loopback address (host:port) node from
	// dials to reach peer to, a relay that forwards to to's p2p listener
	// (package links): persistent_peers name the relays, and the peer
	// exchange is off so that nodes never learn each other's own
	// addresses and bypass them. Seeds cannot work without the peer
	// exchange: a spec with Relay and a seed is refused.
	Relay func(from, to Home) (string, error)
	// Advertise, when set, returns the loopback address (host:port) of
	// the relay in front of node to's p2p listener that every node dials
	// (package links, an inbound relay): to advertises it as its
	// p2p.external_address, so the addresses the peer exchange hands out
	// are the relays' too, and every seed and persistent peer is named by
	// it. It must return the same address for a node each time. The peer
	// exchange stays on. Not with Relay.
	Advertise func(to Home) (string, error)
	// PortsReserved, when set, is told every port Generate reserved for
	// the nodes, before Relay is called: they are free until the nodes
	// start, so a relay must not listen on one.
	PortsReserved func(ports []int)
	// SDKAccounts is the number of funded load accounts of an SDK
	// chain's genesis (App = [AppSDK]), whose keys the chain derives from
	// its seed, as its presign does.
	SDKAccounts int
	// SDK is the rest of an SDK chain's testnet (App = [AppSDK]).
	SDK SDKSpec
	// AppConfig holds the e2e app's app.toml settings (App = [AppE2E]),
	// keyed as the app names them; see [E2EAppKeyProblem].
	AppConfig map[string]any
	// ValidatorUpdates are the e2e app's validator updates (App =
	// [AppE2E]): height → validator node name → new voting power, written
	// into every app.toml's validator_update by the validators' public
	// keys, as CometBFT's e2e runner does. Nil for none.
	ValidatorUpdates map[int64]map[string]int64
	// TimeScale is the testnet's time scale k (the manifest's
	// time_scale): the time constants of every file Generate writes
	// (config.toml, genesis, app.toml, a node's clock skew) ×k and its
	// rates ÷k, by the line's Scaled… facts (timescale.go). 0 or 1 writes
	// them as they are.
	TimeScale float64

	// KeyType is the validators' key type (CometBFT's name, see
	// [KeyType]): the genesis's consensus_params.validator.pub_key_types
	// is set to it and every validator's key made with its NodeSpec's
	// Keygen, as CometBFT's e2e runner does for its key_type; "" or
	// "ed25519" for the keys `cometbft init` makes.
	KeyType string
	// PBTSEnableHeight is the first height whose blocks carry
	// proposer-based timestamps (the genesis's
	// consensus_params.feature.pbts_enable_height, v1.0 and later); 0
	// leaves the release's genesis as it is (BFT time).
	PBTSEnableHeight int64
	// LibP2P runs every node on go-libp2p (QUIC over UDP, on the p2p
	// port) instead of CometBFT's own p2p (TCP): p2p.libp2p.enabled, the
	// peer exchange off and the node's seeds and persistent peers written
	// as p2p.libp2p.bootstrap_peers {host, id, persistent}, as CometBFT's
	// e2e runner does for use_libp2p. Releases whose Line has LibP2P only.
	LibP2P bool
	// Upgrades are the cometbft binaries, by release (or "tree:PATH"),
	// that upgrade perturbations start nodes' homes with during the run,
	// built before it; Generate does not use them. UpgradeSources are the
	// records of those built from a tree, by the node upgraded.
	Upgrades       map[string]string
	UpgradeSources map[string]*SourceRecord
}

// Home is a generated node home.
type Home struct {
	Name   string
	Mode   string
	Dir    string // the node's CometBFT home
	Binary string
	// AppBinary is the e2e app node binary the node runs ("" when it runs
	// Binary with the built-in kvstore).
	AppBinary string
	// AppCommand is the external app's command line for this node
	// (placeholders replaced), nil unless the spec's App is [AppExternal];
	// AppPort is where it listens.
	AppCommand []string
	AppPort    int
	ID         string // p2p node id
	// LibP2PID is the node's libp2p peer id ([LibP2PID]), set when the
	// spec's LibP2P is.
	LibP2PID    string
	RPCPort     int
	P2PPort     int
	MetricsPort int
	Ephemeral   bool   // see NodeSpec.Ephemeral
	Absent      bool   // see NodeSpec.Absent
	StartAt     int64  // see NodeSpec.StartAt
	StateSync   bool   // see NodeSpec.StateSync
	Address     string // see NodeSpec.Address; "" for loopback
	// ClockSkew is the node's clock offset (NodeSpec.ClockSkew), given to
	// it in [ClockSkewEnv]; 0 for none.
	ClockSkew time.Duration
}

// Fixed ports of a node on a host (NodeSpec.Address): CometBFT's
// defaults for the first node of a host, each further node of the same
// host HostPortStride higher.
const (
	HostP2PPort     = 26656
	HostRPCPort     = 26657
	HostMetricsPort = 26660
	HostPortStride  = 10
)

// host is the address the node listens on and is dialled at.
func (h Home) host() string {
	if h.Address != "" {
		return h.Address
	}
	return "127.0.0.1"
}

// Command returns the node's command line and the environment it adds:
// `cometbft start --home DIR`, or for the e2e app node `e2e-node
// DIR/config/app.toml` with CMTHOME=DIR (where it reads config.toml).
func (h Home) Command() (args, env []string) {
	if h.ClockSkew != 0 {
		env = []string{ClockSkewEnv + "=" + h.ClockSkew.String()}
	}
	if h.AppBinary != "" {
		return []string{h.AppBinary, AppConfigFile(h.Dir)}, append(env, "CMTHOME="+h.Dir)
	}
	return []string{h.Binary, "start", "--home", h.Dir}, env
}

// AppAddr returns the external app's address (tcp://127.0.0.1:port).
func (h Home) AppAddr() string { return fmt.Sprintf("tcp://127.0.0.1:%d", h.AppPort) }

// RPCAddr returns the node's RPC address (http://127.0.0.1:port).
func (h Home) RPCAddr() string {
	return "http://" + net.JoinHostPort(h.host(), strconv.Itoa(h.RPCPort))
}

// P2PAddr returns the node's p2p address as peers name it.
func (h Home) P2PAddr() string {
	return h.ID + "@" + net.JoinHostPort(h.host(), strconv.Itoa(h.P2PPort))
}

// MetricsAddr returns the node's Prometheus endpoint.
func (h Home) MetricsAddr() string {
	return "http://" + net.JoinHostPort(h.host(), strconv.Itoa(h.MetricsPort)) + "/metrics"
}

// Generate creates one CometBFT home per node under dir/<name>: keys and a
// default config from each node's own binary (`cometbft init`, so every
// version gets its own defaults), one shared genesis holding the
// validators, and config.toml rewritten with loopback-only listeners on
// free ports, peers, log level, app and the spec's overrides. Every
// override must name a key that exists in that version's config.toml.
func Generate(ctx context.Context, dir string, spec Spec) ([]Home, error) {
	perNode := 3
	if spec.App == AppExternal {
		perNode = 4
	}
	ports, err := freePorts(perNode * len(spec.Nodes))
	if err != nil {
		return nil, err
	}
	if spec.PortsReserved != nil {
		spec.PortsReserved(ports)
	}
	homes := make([]Home, len(spec.Nodes))
	onHost := map[string]int{} // nodes so far per host address
	for i, n := range spec.Nodes {
		h := Home{Name: n.Name, Mode: n.Mode, Dir: filepath.Join(dir, n.Name), Binary: n.Binary, AppBinary: n.AppBinary,
			Ephemeral: n.Ephemeral, Absent: n.Absent, StartAt: n.StartAt, StateSync: n.StateSync, ClockSkew: ScaleDuration(n.ClockSkew, spec.TimeScale), RPCPort: ports[perNode*i], P2PPort: ports[perNode*i+1], MetricsPort: ports[perNode*i+2]}
		if n.Address != "" {
			k := onHost[n.Address] * HostPortStride
			onHost[n.Address]++
			h.Address, h.RPCPort, h.P2PPort, h.MetricsPort = n.Address, HostRPCPort+k, HostP2PPort+k, HostMetricsPort+k
			releasePorts(ports[perNode*i : perNode*(i+1)])
		}
		if spec.App == AppExternal {
			h.AppPort = ports[perNode*i+3]
			h.AppCommand = externalCommand(spec.AppConfig, h)
		}
		args := []string{"init", "--home", h.Dir}
		if spec.App == AppSDK { // the SDK's init: a moniker, the chain's id and token
			args = []string{"init", n.Name, "--home", h.Dir, "--chain-id", spec.ChainID, "--default-denom", spec.SDK.denom()}
		}
		cmd := exec.CommandContext(ctx, n.Binary, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("node %s: %s init: %v: %s", n.Name, n.Binary, err, tail(string(out), 5))
		}
		if spec.App == AppSDK {
			if err := sdkGenesisAsCometBFT(GenesisFile(h.Dir)); err != nil {
				return nil, fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
		if h.ID, err = nodeID(h.Dir); err != nil {
			return nil, fmt.Errorf("node %s: %w", n.Name, err)
		}
		if spec.LibP2P {
			if h.LibP2PID, err = LibP2PID(h.Dir); err != nil {
				return nil, fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
		if n.Mode == ModeValidator && spec.KeyType != "" && spec.KeyType != KeyEd25519 {
			if err := genValidatorKey(ctx, n.Keygen, spec.KeyType, h.Dir); err != nil {
				return nil, fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
		homes[i] = h
	}
	if err := copyTwinKeys(spec, homes); err != nil {
		return nil, err
	}
	if spec.Relay != nil {
		for _, n := range spec.Nodes {
			if n.Mode == ModeSeed {
				return nil, fmt.Errorf("node %s: a seed needs the peer exchange, which relayed links turn off", n.Name)
			}
		}
	}
	if err := writeGenesis(spec, homes); err != nil {
		return nil, err
	}
	updates, err := validatorUpdates(spec, homes)
	if err != nil {
		return nil, err
	}
	for i, n := range spec.Nodes {
		if err := writeConfig(spec, n, homes, i); err != nil {
			return nil, fmt.Errorf("node %s: %w", n.Name, err)
		}
		if spec.App == AppE2E {
			if n.AppBinary == "" {
				return nil, fmt.Errorf("node %s: the e2e app needs the e2e app node binary", n.Name)
			}
			if err := writeAppConfig(spec, n, homes[i], updates); err != nil {
				return nil, fmt.Errorf("node %s: %w", n.Name, err)
			}
		}
	}
	if spec.App == AppSDK {
		if err := sdkGenesis(ctx, spec, homes); err != nil {
			return nil, err
		}
	}
	return homes, nil
}

// copyTwinKeys gives each twin its validator's signing key
// (config/priv_validator_key.json), replacing its own.
func copyTwinKeys(spec Spec, homes []Home) error {
	for i, n := range spec.Nodes {
		if n.TwinOf == "" {
			continue
		}
		j := slices.IndexFunc(spec.Nodes, func(v NodeSpec) bool { return v.Name == n.TwinOf })
		if j < 0 || spec.Nodes[j].Mode != ModeValidator {
			return fmt.Errorf("node %s: a twin of %q, which is no validator of the testnet", n.Name, n.TwinOf)
		}
		b, err := os.ReadFile(PrivValidatorKeyFile(homes[j].Dir))
		if err != nil {
			return fmt.Errorf("node %s: the key of its twin %s: %w", n.Name, n.TwinOf, err)
		}
		if err := os.WriteFile(PrivValidatorKeyFile(homes[i].Dir), b, 0o600); err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	return nil
}

// readGenesisMap reads the genesis at path as JSON objects, its numbers
// as written.
func readGenesisMap(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var gen map[string]any
	if err := d.Decode(&gen); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gen, nil
}

func writeGenesis(spec Spec, homes []Home) error {
	if len(homes) == 0 {
		return fmt.Errorf("no nodes")
	}
	src := 0
	for i, n := range spec.Nodes {
		if n.Version != "" && (spec.Nodes[src].Version == "" || Older(n.Version, spec.Nodes[src].Version)) {
			src = i
		}
	}
	path0 := GenesisFile(homes[src].Dir)
	gen, err := readGenesisMap(path0)
	if err != nil {
		return err
	}
	var vals []any
	for i, n := range spec.Nodes {
		if n.Mode != ModeValidator {
			continue
		}
		var pv struct {
			Address string  `json:"address"`
			PubKey  keyJSON `json:"pub_key"`
		}
		pb, err := os.ReadFile(PrivValidatorKeyFile(homes[i].Dir))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(pb, &pv); err != nil {
			return fmt.Errorf("node %s: priv_validator_key.json: %w", n.Name, err)
		}
		power := n.Power
		if power < 1 {
			power = 1
		}
		vals = append(vals, map[string]any{"address": pv.Address, "pub_key": pv.PubKey,
			"power": fmt.Sprint(power), "name": n.Name})
	}
	if len(vals) == 0 {
		return fmt.Errorf("the testnet has no validator")
	}
	gen["validators"] = vals
	gen["chain_id"] = spec.ChainID
	if spec.KeyType != "" {
		if err := setPubKeyTypes(gen, spec.KeyType); err != nil {
			return fmt.Errorf("%s: %w", path0, err)
		}
	}
	if spec.PBTSEnableHeight > 0 {
		if err := setGenesisParam(gen, GenesisPBTSKey, fmt.Sprint(spec.PBTSEnableHeight)); err != nil {
			return fmt.Errorf("%s: %w", path0, err)
		}
	}
	if spec.App == AppE2E {
		if err := setGenesisAppHeights(gen, spec.AppConfig); err != nil {
			return err
		}
		if err := setE2EAppVersion(gen); err != nil {
			return fmt.Errorf("%s: %w", path0, err)
		}
	}
	if scaled(spec.TimeScale) {
		if err := scaleGenesis(gen, scaleLine(spec.Nodes[src].Version), spec.TimeScale); err != nil {
			return err
		}
	}
	gen["genesis_time"] = time.Now().UTC().Format(time.RFC3339Nano)
	out, err := json.MarshalIndent(gen, "", "  ")
	if err != nil {
		return err
	}
	for _, h := range homes {
		if err := os.WriteFile(GenesisFile(h.Dir), out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// setGenesisParam sets the consensus parameter key (dotted, under
// consensus_params) that the release's genesis already has.
func setGenesisParam(gen map[string]any, key string, v any) error {
	cur, _ := gen["consensus_params"].(map[string]any)
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		cur, _ = cur[p].(map[string]any)
	}
	if _, ok := cur[parts[len(parts)-1]]; !ok {
		return fmt.Errorf("no consensus_params.%s to set", key)
	}
	cur[parts[len(parts)-1]] = v
	return nil
}

// setPubKeyTypes sets the genesis's consensus_params.validator.pub_key_types
// to the one key type, as CometBFT's e2e runner does (runner/setup.go):
// the validators' keys are of that type, and the validator updates the
// app sends must be too.
func setPubKeyTypes(gen map[string]any, keyType string) error {
	cp, _ := gen["consensus_params"].(map[string]any)
	val, _ := cp["validator"].(map[string]any)
	if _, ok := val["pub_key_types"]; !ok {
		return fmt.Errorf("no consensus_params.validator.pub_key_types to set to %s", keyType)
	}
	val["pub_key_types"] = []any{keyType}
	return nil
}
