package cometbft

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DefaultVersion is the newest CometBFT release the Go module proxy serves
// (by release date; v1.0.x is older), pinned so that runs are repeatable.
const DefaultVersion = "v0.40.0"

// Module is the Go module CometBFT releases are fetched from; from v2 on,
// its major version suffix: see [ModuleOf].
const Module = "github.com/cometbft/cometbft"

// ModuleOf returns the module path release version is fetched by:
// [Module] for v0 and v1, Module + "/vN" from v2 on (Go's semantic import
// versioning; the v2 line's go.mod declares github.com/cometbft/cometbft/v2).
func ModuleOf(version string) string {
	if p, ok := parseVersion(version); ok && p.nums[0] >= 2 {
		return fmt.Sprintf("%s/v%d", Module, p.nums[0])
	}
	return Module
}

// modules are the module paths of the lines' releases, oldest first.
func modules() []string {
	var out []string
	for _, l := range Lines() {
		if m := ModuleOf(l.Proven); !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// Line is one release line and what differs about it that cometlab
// handles: what differs between lines lives here and nowhere else. The
// README's version table is generated from these facts (TestREADMEVersions)
// and the version-matrix test checks each of them against the line's
// proven release: its binary, the files of `cometbft init`, a run's
// metrics and the module source.
type Line struct {
	Prefix string // "v0.38"
	// Proven is the release of the line the version-matrix test runs: the
	// newest that builds here.
	Proven string
	// Parent is the line this one branched from, against which the
	// Config…, Genesis… and E2E… differences are stated ("" for the
	// oldest). v1.0 branched from v0.38, before v0.39 and v0.40.
	Parent string
	// ModulePath is the module path the line's go.mod declares; go install
	// builds only releases that declare [Module].
	ModulePath string
	// Reports is what `cometbft version` of the proven release prints
	// (v0.37.18 prints 0.37.16, v0.40.0 prints 0.39.0).
	Reports string
	// P2PProtocol and BlockProtocol are the protocol versions a node
	// announces (version/version.go); ABCI is the ABCI semantic version.
	P2PProtocol, BlockProtocol int
	ABCI                       string
	// NewConsensusMessages are consensus messages the line sends that its
	// parent cannot decode.
	NewConsensusMessages []string
	// DBBackend is config.toml's default db_backend.
	DBBackend string
	// MetricsNamespace is the default instrumentation.namespace.
	MetricsNamespace string
	// MetricsAbsent are the families of cometlab's default scrape (without
	// the namespace) the line does not expose, each with the line's
	// equivalent that the scrape keeps instead ("" for none).
	MetricsAbsent map[string]string
	// ConfigAdded and ConfigRemoved are the config.toml keys (dotted; an
	// array of tables indexed, "x.0.y") of `cometbft init` added and
	// removed against Parent.
	ConfigAdded, ConfigRemoved []string
	// GenesisAdded and GenesisRemoved are the consensus_params keys
	// (dotted) of `cometbft init`'s genesis added and removed against
	// Parent; BlockMaxBytes and BlockMaxGas are its block limits, which
	// bound a block's transactions.
	GenesisAdded, GenesisRemoved []string
	BlockMaxBytes, BlockMaxGas   int64
	// KVStoreInitAppHash is the app hash (hex) the built-in kvstore returns
	// from InitChain: validators whose kvstores disagree cannot commit
	// height 1 together.
	KVStoreInitAppHash string
	// MedianTimeCommitOnly: a block's time (BFT time, the weighted median
	// of the vote times of the previous block's commit) counts commit votes
	// only (v0.40); the other lines count nil precommits too, so validators
	// of both kinds disagree about the time of a block whose last commit
	// holds a nil precommit.
	MedianTimeCommitOnly bool
	// EvidenceSnakeKeys: the JSON of a DuplicateVoteEvidence (what
	// broadcast_evidence takes) names its power and time fields
	// total_voting_power, validator_power and timestamp (v1.0, struct
	// tags in types/evidence.go); the other lines use the Go names
	// TotalVotingPower, ValidatorPower and Timestamp.
	EvidenceSnakeKeys bool
	// E2EAppKeys are the keys of the config file of CometBFT's e2e app node
	// (test/e2e/node/config.go), sorted.
	E2EAppKeys []string
	// ClockSkew: the release's types/time has a clock_skew build tag
	// (now_skew.go) under which every clock reading of the node is offset
	// by the COMETBFT_CLOCK_SKEW environment variable: how CometBFT's e2e
	// runner gives a node a skewed clock (the manifest's clock_skew).
	ClockSkew bool
	// ScaledTimes are the config.toml keys (dotted; an array of tables
	// indexed) holding a time the node obeys, which a time-scaled testnet
	// multiplies by k, each with its default in `cometbft init` of the
	// proven release; ScaledRates those holding a rate (bytes/s), divided
	// by k. GenesisScaledTimes are the genesis's consensus_params keys
	// holding a time (an integer string: ns, or ms for
	// block.time_iota_ms), multiplied by k, with their defaults;
	// E2EAppScaledTimes the e2e app's delays (Go durations). See
	// timescale.go and docs/timescale.md.
	ScaledTimes, ScaledRates map[string]string
	GenesisScaledTimes       map[string]string
	E2EAppScaledTimes        []string

	// LibP2P: the line can network with go-libp2p instead of its own p2p
	// ([p2p.libp2p] in config.toml: QUIC over UDP on the p2p port,
	// bootstrap peers by libp2p id; v0.39 and v0.40).
	LibP2P bool

	// KeyTypes are the validator key types the line's nodes sign and
	// verify with: the keys of types/params.go's ABCIPubKeyTypesToNames
	// (types/protobuf.go in v0.34), which a genesis's
	// consensus_params.validator.pub_key_types may name. ed25519 first.
	KeyTypes []KeyType

	// Mempools are the mempool types (config.toml's mempool.type) the
	// line's releases run, flood first: nop came with v0.37.4 and v0.38.2
	// (cometbft#1643), app with v0.39.2 (the app-side mempool, ABCI
	// InsertTx and ReapTxs).
	Mempools []Feature
	// AdaptiveSync: the line has blocksync.adaptive_sync (v0.39.0 on:
	// block sync and consensus at once, cometbft#5633).
	AdaptiveSync bool
}

// Lines returns the release lines cometlab knows, oldest first (a fresh
// copy on every call). It is data, one literal a line with its facts, and
// stays one function so that the lines read side by side.
func Lines() []Line {
	// The e2e app node's config keys of v0.39 and v0.40.
	e2eAppKeysV039 := []string{"app_side_mempool", "chain_id", "dir", "key_type", "listen", "mode", "persist_interval",
		"privval_key", "privval_server", "privval_state", "protocol", "retain_blocks", "snapshot_interval",
		"validator_update", "vote_extension_size", "vote_extensions_enable_height", "vote_extensions_update_height"}
	// storageMetricsAbsent: v1.0's storage series (pruning, store access
	// times) and its proposal timestamp difference (PBTS), which the lines
	// before it do not expose, and v2.0's mempool lane series.
	ed, secp := KeyType{Name: KeyEd25519}, KeyType{Name: KeySecp256k1}
	flood, nop := Feature{Name: MempoolFlood}, Feature{Name: MempoolNop}
	bls := KeyType{Name: KeyBLS12381, Tag: "bls12381", CGO: true}
	// v0.39 and v0.40 turn a BLS key back from protobuf (a validator set
	// read from the store) into a *bls12381.PubKey, which their own
	// PubKeyToProto does not take (it switches on the value type; v1.0
	// on Type()).
	blsHalts := bls
	blsHalts.Halts = "crypto/encoding's PubKeyToProto takes a bls12381.PubKey value, but a validator set read back from the node's store holds " +
		"*bls12381.PubKey (NewPublicKeyFromBytes): the first proposer hashes it and stops with CONSENSUS FAILURE \"toproto: key type … is not supported\""
	storageMetricsAbsent := map[string]string{"state_block_store_base_height": "", "state_store_access_duration_seconds": "",
		"store_block_store_access_duration_seconds": "", "consensus_proposal_timestamp_difference": "",
		"mempool_lane_size": "", "mempool_tx_life_span": ""}
	return withTimeScaleFacts([]Line{
		{
			Prefix: "v0.34", Proven: "v0.34.33", ModulePath: "github.com/tendermint/tendermint", Reports: "0.34.33",
			P2PProtocol: 8, BlockProtocol: 11, ABCI: "0.17.0",
			DBBackend: "goleveldb", MetricsNamespace: "cometbft",
			MetricsAbsent: map[string]string{
				"abci_connection_method_timing_seconds":     "",
				"blocksync_syncing":                         "consensus_fast_syncing",
				"consensus_full_prevote_delay":              "",
				"consensus_late_votes":                      "",
				"consensus_proposal_timestamp_difference":   "",
				"consensus_quorum_prevote_delay":            "",
				"consensus_round_duration_seconds":          "",
				"state_block_store_base_height":             "",
				"state_store_access_duration_seconds":       "",
				"store_block_store_access_duration_seconds": "",
				"mempool_lane_size":                         "", // v2.0's lanes
				"mempool_tx_life_span":                      "",
			},
			BlockMaxBytes: 22020096, BlockMaxGas: -1,
			KVStoreInitAppHash: "",
			E2EAppKeys: []string{"chain_id", "key_type", "misbehaviors", "mode", "persist_interval", "privval_key",
				"privval_server", "privval_state", "retain_blocks", "snapshot_interval", "validator_update"},
			KeyTypes: []KeyType{ed, secp},
			Mempools: []Feature{flood},
		},
		{
			Prefix: "v0.37", Proven: "v0.37.18", Parent: "v0.34", ModulePath: Module, Reports: "0.37.16",
			P2PProtocol: 8, BlockProtocol: 11, ABCI: "1.0.0",
			DBBackend: "goleveldb", MetricsNamespace: "cometbft",
			MetricsAbsent: map[string]string{"blocksync_syncing": "consensus_block_syncing",
				"state_block_store_base_height": "", "state_store_access_duration_seconds": "", "store_block_store_access_duration_seconds": "",
				"consensus_proposal_timestamp_difference": "", "mempool_lane_size": "", "mempool_tx_life_span": ""},
			ConfigAdded:   []string{"block_sync", "blocksync.version", "mempool.type", "statesync.max_snapshot_chunks"},
			ConfigRemoved: []string{"fast_sync", "fastsync.version", "p2p.upnp"},
			GenesisAdded:  []string{"version.app"}, GenesisRemoved: []string{"block.time_iota_ms"},
			BlockMaxBytes: 22020096, BlockMaxGas: -1,
			KVStoreInitAppHash: "",
			E2EAppKeys: []string{"chain_id", "key_type", "mode", "persist_interval", "privval_key",
				"privval_server", "privval_state", "retain_blocks", "snapshot_interval", "validator_update"},
			KeyTypes: []KeyType{ed, secp},
			Mempools: []Feature{flood, {Name: MempoolNop, Since: "v0.37.4"}},
		},
		{
			Prefix: "v0.38", Proven: "v0.38.26", Parent: "v0.37", ModulePath: Module, Reports: "0.38.26",
			P2PProtocol: 8, BlockProtocol: 11, ABCI: "2.0.0",
			DBBackend: "goleveldb", MetricsNamespace: "cometbft",
			MetricsAbsent: storageMetricsAbsent,
			ConfigAdded: []string{"consensus.block_time_tolerance", "event_bus_buffer_capacity", "mempool.recheck_timeout",
				"rpc.max_request_batch_size", "version"},
			ConfigRemoved: []string{"block_sync", "mempool.ttl-duration", "mempool.ttl-num-blocks", "mempool.version"},
			GenesisAdded:  []string{"abci.vote_extensions_enable_height"},
			BlockMaxBytes: 22020096, BlockMaxGas: -1,
			KVStoreInitAppHash: "0000000000000000",
			E2EAppKeys: []string{"chain_id", "dir", "key_type", "listen", "mode", "persist_interval", "privval_key",
				"privval_server", "privval_state", "protocol", "retain_blocks", "snapshot_interval", "validator_update",
				"vote_extensions_enable_height", "vote_extensions_update_height"},
			KeyTypes: []KeyType{ed, secp, {Name: KeyMLDSA65, Since: "v0.38.26"}},
			Mempools: []Feature{flood, {Name: MempoolNop, Since: "v0.38.2"}},
		},
		{
			Prefix: "v0.39", Proven: "v0.39.4", Parent: "v0.38", ModulePath: Module, Reports: "0.39.4",
			P2PProtocol: 8, BlockProtocol: 11, ABCI: "2.0.0",
			DBBackend: "goleveldb", MetricsNamespace: "cometbft",
			MetricsAbsent: storageMetricsAbsent,
			ConfigAdded: []string{"blocksync.adaptive_sync", "mempool.check_tx_retry_delay", "mempool.reap_interval",
				"mempool.reap_max_bytes", "mempool.reap_max_gas", "mempool.seen_cache_size", "p2p.libp2p.enabled",
				"p2p.libp2p.limits.max_peer_streams", "p2p.libp2p.limits.max_peers", "p2p.libp2p.limits.mode",
				"p2p.libp2p.scaler.max_workers", "p2p.libp2p.scaler.min_workers",
				"p2p.libp2p.scaler.overrides.0.max_workers", "p2p.libp2p.scaler.overrides.0.min_workers",
				"p2p.libp2p.scaler.overrides.0.reactor", "p2p.libp2p.scaler.overrides.0.threshold_latency",
				"p2p.libp2p.scaler.threshold_latency"},
			GenesisAdded:  []string{"authority.authority"},
			BlockMaxBytes: 22020096, BlockMaxGas: -1,
			KVStoreInitAppHash: "0000000000000000",
			E2EAppKeys:         e2eAppKeysV039, LibP2P: true,
			KeyTypes:     []KeyType{ed, secp, blsHalts},
			Mempools:     []Feature{flood, nop, {Name: MempoolApp, Since: "v0.39.2"}},
			AdaptiveSync: true,
		},
		{
			Prefix: "v0.40", Proven: "v0.40.0", Parent: "v0.39", ModulePath: Module, Reports: "0.39.0",
			P2PProtocol: 8, BlockProtocol: 11, ABCI: "2.0.0", MedianTimeCommitOnly: true,
			DBBackend: "goleveldb", MetricsNamespace: "cometbft",
			MetricsAbsent: storageMetricsAbsent,
			BlockMaxBytes: 55600190, BlockMaxGas: -1,
			KVStoreInitAppHash: "0000000000000000",
			E2EAppKeys:         e2eAppKeysV039, LibP2P: true,
			KeyTypes:     []KeyType{ed, secp, {Name: KeySecp256k1Eth}, blsHalts, {Name: KeyMLDSA65}},
			Mempools:     []Feature{flood, nop, {Name: MempoolApp}},
			AdaptiveSync: true,
		},
		{
			Prefix: "v1.0", Proven: "v1.0.1", Parent: "v0.38", ModulePath: Module, Reports: "1.0.1",
			P2PProtocol: 9, BlockProtocol: 11, ABCI: "2.1.0",
			NewConsensusMessages: []string{"HasProposalBlockPart"}, EvidenceSnakeKeys: true, ClockSkew: true,
			DBBackend: "pebbledb", MetricsNamespace: "cometbft",
			MetricsAbsent: map[string]string{
				"p2p_peer_receive_bytes_total": "p2p_message_receive_bytes_total",
				"p2p_peer_send_bytes_total":    "p2p_message_send_bytes_total",
				"mempool_lane_size":            "", // v2.0's lanes
				"mempool_tx_life_span":         "",
			},
			ConfigAdded: []string{"consensus.peer_gossip_intraloop_sleep_duration", "grpc.block_results_service.enabled",
				"grpc.block_service.enabled", "grpc.laddr", "grpc.privileged.laddr", "grpc.privileged.pruning_service.enabled",
				"grpc.version_service.enabled", "storage.compact", "storage.compaction_interval",
				"storage.experimental_db_key_layout", "storage.pruning.data_companion.enabled",
				"storage.pruning.data_companion.initial_block_results_retain_height",
				"storage.pruning.data_companion.initial_block_retain_height", "storage.pruning.interval"},
			ConfigRemoved: []string{"consensus.block_time_tolerance", "event_bus_buffer_capacity", "mempool.max_batch_bytes",
				"rpc.grpc_laddr", "rpc.grpc_max_open_connections", "statesync.max_snapshot_chunks"},
			GenesisAdded: []string{"feature.pbts_enable_height", "feature.vote_extensions_enable_height",
				"synchrony.message_delay", "synchrony.precision"},
			GenesisRemoved: []string{"abci.vote_extensions_enable_height"},
			BlockMaxBytes:  4194304, BlockMaxGas: 10000000,
			KVStoreInitAppHash: "0000000000000000",
			E2EAppKeys: []string{"abci_requests_logging_enabled", "chain_id", "check_tx_delay", "compact",
				"compaction_interval", "dir", "discard_abci_responses", "experimental_db_key_layout", "finalize_block_delay",
				"indexer", "key_type", "listen", "mode", "pbts_enable_height", "pbts_update_height", "persist_interval",
				"prepare_proposal_delay", "privval_key", "privval_server", "privval_state", "process_proposal_delay",
				"protocol", "retain_blocks", "snapshot_interval", "validator_update", "vote_extension_delay",
				"vote_extension_size", "vote_extensions_enable_height", "vote_extensions_update_height"},
			KeyTypes: []KeyType{ed, secp, bls},
			Mempools: []Feature{flood, nop},
		},
		{
			// v2.0 stopped at rc1 (2025-06); its go.mod declares the /v2
			// module path (ModuleOf).
			Prefix: "v2.0", Proven: "v2.0.0-rc1", Parent: "v1.0", ModulePath: Module + "/v2", Reports: "2.0.0-dev",
			P2PProtocol: 9, BlockProtocol: 11, ABCI: "2.3.0", EvidenceSnakeKeys: true, ClockSkew: true,
			DBBackend: "pebbledb", MetricsNamespace: "cometbft",
			MetricsAbsent: map[string]string{
				"p2p_peer_receive_bytes_total": "p2p_message_receive_bytes_total",
				"p2p_peer_send_bytes_total":    "p2p_message_send_bytes_total",
				"state_block_processing_time":  "",
			},
			ConfigAdded: []string{"consensus.timeout_vote", "consensus.timeout_vote_delta", "log_colors", "mempool.dog_adjust_interval",
				"mempool.dog_protocol_enabled", "mempool.dog_target_redundancy", "mempool.experimental_publish_event_pending_tx",
				"statesync.max_discovery_time"},
			ConfigRemoved: []string{"consensus.skip_timeout_commit", "consensus.timeout_precommit", "consensus.timeout_precommit_delta",
				"consensus.timeout_prevote", "consensus.timeout_prevote_delta", "mempool.wal_dir", "p2p.dial_timeout", "p2p.handshake_timeout",
				"statesync.discovery_time"},
			BlockMaxBytes: 4194304, BlockMaxGas: 10000000,
			KVStoreInitAppHash: "0000000000000000",
			E2EAppKeys: []string{"abci_requests_logging_enabled", "chain_id", "check_tx_delay", "compact", "compaction_interval",
				"constant_flip", "dir", "discard_abci_responses", "experimental_db_key_layout", "finalize_block_delay", "indexer",
				"key_type", "lanes", "listen", "mode", "no_lanes", "pbts_enable_height", "pbts_update_height", "persist_interval",
				"prepare_proposal_delay", "privval_key", "privval_server", "privval_state", "process_proposal_delay", "protocol",
				"retain_blocks", "snapshot_interval", "validator_update", "vote_extension_delay", "vote_extension_size",
				"vote_extensions_enable_height", "vote_extensions_update_height"},
			KeyTypes: []KeyType{ed, secp, {Name: KeySecp256k1Eth, Tag: "secp256k1eth"}, bls},
			Mempools: []Feature{flood, nop},
		},
	})
}

// LineByPrefix returns the line "v0.38" names.
func LineByPrefix(prefix string) (Line, bool) {
	ls := Lines()
	i := slices.IndexFunc(ls, func(l Line) bool { return l.Prefix == prefix })
	if i < 0 {
		return Line{}, false
	}
	return ls[i], true
}

// Mixing is what happens when validators of two lines share a network
// running the built-in kvstore.
type Mixing struct {
	// Starts: the network commits its first blocks.
	Starts bool
	// MayHalt: a consensus rule differs, so the network can stop
	// committing later, when what the rules disagree about happens.
	MayHalt bool
	// Why it never starts or may halt, or the trouble it commits despite;
	// empty when there is none.
	Why []string
	// Evidence is what the nodes' logs show for each reason.
	Evidence []string
}

// Mix says how validators of lines a and b do together, from the lines'
// facts: kvstores that disagree about the app hash after InitChain reject
// each other's first proposal; lines that compute a block's time
// differently reject each other's proposals once a commit holds a nil
// precommit; a line that sends a consensus message the other cannot decode
// has its peers dropped (and redialled) by the other's nodes, which slows
// but does not stop the chain. The reasons are worded for every pair
// alike, so that a table can number them.
func Mix(a, b Line) Mixing {
	m := Mixing{Starts: true}
	if a.KVStoreInitAppHash != b.KVStoreInitAppHash {
		m.Starts = false
		m.Why = append(m.Why, fmt.Sprintf("the built-in kvstore returns a different app hash from InitChain (%s), so validators reject each other's proposals for height 1 and the chain never starts",
			groupLines(a, b, func(l Line) string { return hashOrEmpty(l.KVStoreInitAppHash) })))
		m.Evidence = append(m.Evidence, "wrong Block.Header.AppHash")
	}
	if m.Starts && a.MedianTimeCommitOnly != b.MedianTimeCommitOnly {
		m.MayHalt = true
		m.Why = append(m.Why, fmt.Sprintf("a block's time, the weighted median of the vote times of the previous block's commit, counts different votes (%s): once a commit holds a nil precommit, validators disagree about the next block's time and reject each other's proposals, and a network split evenly halts",
			groupLines(a, b, func(l Line) string {
				if l.MedianTimeCommitOnly {
					return "commit votes only"
				}
				return "commit and nil votes"
			})))
		m.Evidence = append(m.Evidence, "invalid block time")
	}
	older, newer := a, b
	if newer.P2PProtocol < older.P2PProtocol {
		older, newer = newer, older
	}
	if msgs := newMessages(newer, older.P2PProtocol); older.P2PProtocol != newer.P2PProtocol && len(msgs) > 0 {
		m.Why = append(m.Why, fmt.Sprintf("nodes of %s send the %s consensus message (p2p protocol %d), which nodes of p2p protocol %d cannot decode: they drop the peer that sent it and redial it, over and over, but blocks still commit",
			newer.Prefix, strings.Join(msgs, ", "), newer.P2PProtocol, older.P2PProtocol))
		m.Evidence = append(m.Evidence, "unknown message")
	}
	return m
}

// newMessages returns the consensus messages line l sends that nodes of
// p2p protocol p cannot decode: the NewConsensusMessages of l and of its
// parents back to the first of protocol p or below (v2.0 sends v1.0's
// HasProposalBlockPart).
func newMessages(l Line, p int) []string {
	var out []string
	for l.P2PProtocol > p {
		out = append(out, l.NewConsensusMessages...)
		parent, ok := LineByPrefix(l.Parent)
		if !ok {
			break
		}
		l = parent
	}
	return out
}

// groupLines says which lines share a's and b's value of a fact: "v0.34,
// v0.37: empty; v0.38, v0.39, v0.40, v1.0: 0000000000000000", sorted.
func groupLines(a, b Line, fact func(Line) string) string {
	var groups []string
	for _, v := range []string{fact(a), fact(b)} {
		var ps []string
		for _, l := range Lines() {
			if fact(l) == v {
				ps = append(ps, l.Prefix)
			}
		}
		groups = append(groups, strings.Join(ps, ", ")+": "+v)
	}
	slices.Sort(groups)
	return strings.Join(groups, "; ")
}

func hashOrEmpty(h string) string {
	if h == "" {
		return "empty"
	}
	return h
}

var versionRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$`)

// LineOf returns the release line of a version such as "v0.38.26".
func LineOf(version string) (Line, error) {
	if !versionRE.MatchString(version) {
		return Line{}, fmt.Errorf("malformed version %q (want vMAJOR.MINOR.PATCH[-pre], e.g. %q)", version, DefaultVersion)
	}
	for _, l := range Lines() {
		if strings.HasPrefix(version, l.Prefix+".") {
			return l, nil
		}
	}
	ls := Lines()
	known := make([]string, len(ls))
	for i, l := range ls {
		known[i] = l.Prefix + ".x"
	}
	return Line{}, fmt.Errorf("version %q is of no release line cometlab knows (%s)", version, strings.Join(known, ", "))
}

// RunSpecificConfigKeys returns the config.toml keys (dotted) that
// cometlab sets per node and per run — listen addresses on free ports,
// peers, moniker — in every release line: they differ between any two
// runs and say nothing about the setup, so comparisons leave them out.
func RunSpecificConfigKeys() []string {
	return []string{"moniker", "rpc.laddr", "p2p.laddr", "p2p.external_address", "p2p.persistent_peers", "p2p.seeds",
		"p2p.libp2p.bootstrap_peers", "instrumentation.prometheus_listen_addr"}
}

// provenReleases are the lines' proven releases, oldest first.
func provenReleases() []string {
	ls := Lines()
	vs := make([]string, len(ls))
	for i, l := range ls {
		vs[i] = l.Proven
	}
	return vs
}
