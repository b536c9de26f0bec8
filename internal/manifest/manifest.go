package manifest

import (
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/payload"
)

// DefaultCometBFTVersion is the CometBFT release a testnet runs when the
// manifest names neither a version nor a binary: the newest release.
const DefaultCometBFTVersion = cometbft.DefaultVersion

// Node modes.
const (
	// ModeValidator is a node with a signing key and voting power.
	ModeValidator = "validator"
	// ModeFull is a full node: it follows the chain without voting.
	ModeFull = "full"
	// ModeSeed is a seed node: it only crawls and hands out peer addresses.
	ModeSeed = "seed"
)

// Link modes (links).
const (
	LinksAuto   = "auto"   // relay when a disconnect needs it, else direct
	LinksDirect = "direct" // nodes dial each other
	LinksRelay  = "relay"  // every directed peer link through a relay
)

// Pacing modes of the load generator.
const (
	// PacingEven spreads each connection's sends evenly: one every 1/r s.
	PacingEven = "even"
	// PacingBurst sends each connection's r transactions of a second in one
	// batch at the start of the second, as CometBFT's test/loadtime does.
	PacingBurst = "burst"
)

// MaxValidators bounds the validators key (and --validators), so that a typo
// cannot ask for a million node processes. CometBFT's own QA runs 200 nodes.
const MaxValidators = 1000

// Transaction size bounds, in bytes.
const (
	// MaxTxSize is loadtime's maximum payload, 4 MiB, above any mempool's
	// default max_tx_bytes (1 MiB).
	MaxTxSize = payload.MaxSize
)

// Manifest is a testnet and load description as the user writes it in TOML.
// Every key is optional: [Default] gives the value an absent key takes. Use
// [Load] or [Parse] to read one (they record key positions for error
// messages), [Manifest.Apply] to lay command-line flags over it and
// [Manifest.Resolve] to turn it into the testnet that runs.
type Manifest struct {
	// Name names the testnet in reports. Default "default".
	//
	//	name = "mempool-1k"
	Name string `toml:"name"`

	// CometBFTVersion is the CometBFT release every node runs, fetched with
	// go install; it must look like vMAJOR.MINOR.PATCH[-pre]. Default
	// [DefaultCometBFTVersion]. Ignored when CometBFTBinary is set.
	//
	//	cometbft_version = "v0.38.17"
	CometBFTVersion string `toml:"cometbft_version"`

	// CometBFTBinary is the path of the user's own cometbft binary; when set
	// it wins over CometBFTVersion. Default "" (fetch CometBFTVersion).
	//
	//	cometbft_binary = "/home/me/cometbft/build/cometbft"
	CometBFTBinary string `toml:"cometbft_binary"`

	// CometBFTSource is a CometBFT source tree every node runs (a git
	// checkout or a plain directory; relative to the working directory),
	// built with its own go.mod, uncommitted changes included, its release
	// line read from its version file (docs/source.md). Default "".
	//
	//	cometbft_source = "../cometbft"
	CometBFTSource string `toml:"cometbft_source"`

	// CometBFTPatches are patch files applied in order (git apply) to
	// CometBFTVersion's module source, or a copy of CometBFTSource.
	//
	//	cometbft_patches = ["testdata/patches/v0.40.0-libp2p-noblock-close.diff"]
	CometBFTPatches []string `toml:"cometbft_patches"`

	// App is the ABCI application: [AppKVStore] ("kvstore", built into the
	// cometbft binary) or [AppE2E] ("e2e", CometBFT's e2e app node of each
	// node's release, built and cached like the node binary). The e2e app's
	// settings (its app.toml keys, checked against each node's release) go
	// in an [app] table with kind = "e2e"; vote_extensions_enable_height
	// defaults to 1 where the release has vote extensions. Or the user's
	// own ABCI app ([AppExternal]): an [app] table with command, started
	// beside each node with {addr} (tcp://127.0.0.1:PORT), {port}, {home}
	// (the node's home) and {name} replaced, and abci, "socket" (default)
	// or "grpc". Default "kvstore".
	//
	//	app = "e2e"
	//
	//	[app]
	//	kind = "e2e"
	//	vote_extension_size = 2048
	//
	//	app = { command = ["./myappd", "--address", "{addr}"], abci = "socket" }
	App any `toml:"app"`

	// Validators is the number of validators generated (validator01 …
	// validatorNN, power 1) when no [node.*] tables are given; it is ignored
	// otherwise, but must still be between 1 and [MaxValidators]. Default 4.
	//
	//	validators = 7
	Validators int `toml:"validators"`

	// LogLevel is CometBFT's log_level for every node. Default
	// "state:info,*:error": quiet, since node logs compete with the nodes for
	// CPU.
	//
	//	log_level = "consensus:debug,*:error"
	LogLevel string `toml:"log_level"`

	// Links is how the nodes' p2p connections run: "direct" (node to
	// node), "relay" (each directed peer link through a loopback relay
	// cometlab owns, which a disconnect perturbation cuts; the peer
	// exchange is off) or "auto" (relay when a disconnect needs it, else
	// direct). Default "auto".
	//
	//	links = "relay"
	Links string `toml:"links"`

	// Topology is how the nodes find each other: "mesh" (every node a
	// persistent peer of every other, every seed a seed of every node),
	// "seeds" (every node knows only the seed nodes, and finds the others
	// through the peer exchange; the seeds are persistent peers of each
	// other) or "as-written" (each node's seeds and persistent_peers; a
	// node that lists neither has every other node as a persistent peer,
	// as CometBFT's e2e runner does). The peer exchange is on and the peer
	// limits are CometBFT's defaults (p2p.max_num_inbound_peers = 40,
	// p2p.max_num_outbound_peers = 10), both overridable in [config].
	// Default "mesh", or "as-written" when a node lists seeds or
	// persistent_peers.
	//
	//	topology = "seeds"
	Topology string `toml:"topology"`

	// Config holds config.toml overrides for every node, as section tables
	// with dotted keys or as quoted dotted keys; both forms mean the same,
	// and setting one key both ways is an error. Values keep their TOML
	// types. Default: none.
	//
	//	[config]
	//	mempool.size = 5000
	//	"consensus.timeout_commit" = "1s"
	Config map[string]any `toml:"config"`

	// Nodes are explicit nodes keyed by name ([a-z0-9_-]+). Default: none,
	// which means Validators generated validators.
	//
	//	[node.validator01]
	//	power = 10
	//	[node.full01]
	//	mode = "full"
	Nodes map[string]ManifestNode `toml:"node"`

	// Perturb are perturbations keyed by node name: what is done to the
	// node during the load and when (see [ManifestPerturb]). Default: none.
	//
	//	[perturb.validator03]
	//	action = "kill"
	//	at = "20s"
	Perturb map[string]ManifestPerturb `toml:"perturb"`

	// ValidatorUpdate changes validators' voting power at heights, made by
	// the e2e app as CometBFT's e2e runner has it do (app = "e2e"):
	// [validator_update.HEIGHT] tables of validator name = power (0
	// removes it, at most 255). The update returned at HEIGHT takes effect
	// at HEIGHT + 2; height 0 is InitChain, whose validators replace the
	// genesis ones. Default: none.
	//
	//	[validator_update.20]
	//	validator01 = 50
	//	validator04 = 0
	ValidatorUpdate map[string]map[string]int64 `toml:"validator_update"`

	// Absent are validators that are in the genesis (keys and voting
	// power) but never started: CometBFT's absent-stake testnet. Either a
	// list of validator names, or a share of the voting power as "N%"
	// (0 ≤ N < 100), which makes absent the last validators in name order,
	// as many as fit in the share. The validators left must hold more than
	// 2/3 of the voting power. On the command line: --set absent=25%,
	// absent=validator03+validator04 or absent=none. Default: none.
	//
	//	absent = ["validator04"]
	//	absent = "25%"
	Absent any `toml:"absent"`

	// Evidence is how many pieces of duplicate-vote evidence are injected
	// during the load, as CometBFT's e2e runner does for its evidence key:
	// two conflicting precommits signed with a validator's key, sent with
	// broadcast_evidence (0 to [MaxEvidence]; CometBFT v0.38 and later
	// releases; see docs/scenarios.md). Default 0.
	//
	//	evidence = 2
	Evidence int `toml:"evidence"`

	// KeyType is the validators' key type, network-wide, as CometBFT's
	// e2e manifest's key_type: "ed25519", "secp256k1", "secp256k1eth",
	// "bls12_381" or "ml_dsa_65" (CometBFT's names), where every node's
	// release has it (cometbft.Line.KeyTypes; `cometlab versions`). The
	// validators' keys are made with the release's own crypto and the
	// genesis's consensus_params.validator.pub_key_types is set to it, as
	// CometBFT's e2e runner does; bls12_381 runs nodes built with the
	// bls12381 tag (cgo and a C compiler; local testnets only). Evidence
	// is forged with every type but bls12_381. Default "ed25519".
	//
	//	key_type = "ml_dsa_65"
	KeyType string `toml:"key_type"`

	// PBTSEnableHeight is the first height whose blocks carry
	// proposer-based timestamps (PBTS: the proposer's clock, checked by
	// every validator against the synchrony parameters) instead of BFT
	// time (the median of the previous commit's vote times): the
	// genesis's consensus_params.feature.pbts_enable_height, on releases
	// that have it (v1.0 and later; refused on the others). With the e2e
	// app it is also the app's pbts_enable_height setting. Block latency
	// is measured to the block's time, so compare and ab warn when the
	// sides stamp blocks differently (docs/compare.md). Default 0 (BFT
	// time).
	//
	//	pbts_enable_height = 1
	PBTSEnableHeight int64 `toml:"pbts_enable_height"`

	// DOG turns on the mempool's DOG gossip (ADR-119: a node learns which
	// peers send it transactions it already has and asks them to stop,
	// down to a target redundancy): every node's config.toml
	// mempool.dog_protocol_enabled, on releases that have it (v2.0;
	// refused on the others). Its effect shows in the bytes sent per
	// message type (p2p_sent_bytes_per_tx_txs, _have_tx, _reset_route).
	// Default false.
	//
	//	dog = true
	DOG bool `toml:"dog"`

	// DOGTargetRedundancy is the redundancy DOG aims at (how many copies
	// of a transaction a node may receive beyond the first; > 0), its
	// mempool.dog_target_redundancy; dog = true only. Default 1.
	//
	//	dog_target_redundancy = 0.5
	DOGTargetRedundancy float64 `toml:"dog_target_redundancy"`

	// DOGAdjustInterval is how often DOG adjusts its routes (≥ 1 s), its
	// mempool.dog_adjust_interval; dog = true only. Default "1s".
	//
	//	dog_adjust_interval = "2s"
	DOGAdjustInterval string `toml:"dog_adjust_interval"`
	// LibP2P runs every node on go-libp2p (QUIC over UDP on the p2p port)
	// instead of CometBFT's own p2p (TCP), as CometBFT's e2e manifest's
	// use_libp2p (on every node: one testnet runs one transport). Each
	// node's seeds and persistent peers (the topology) become its
	// p2p.libp2p.bootstrap_peers, with the peer's libp2p id; the peer
	// exchange is off (CometBFT turns it off under libp2p), so seeds are
	// refused. The scaler and limits are config.toml keys
	// ("p2p.libp2p.scaler.max_workers", "p2p.libp2p.limits.mode", …),
	// set in [config]. Releases whose line has libp2p only (v0.39,
	// v0.40). Relayed links (zones, disconnect, partition) go through
	// one UDP relay per node, which it advertises (docs/libp2p.md).
	// Default false.
	//
	//	libp2p = true
	LibP2P bool `toml:"libp2p"`

	// Mempool is every node's mempool (config.toml's mempool.type), as
	// CometBFT's e2e manifest's mempool_type: "flood" (CometBFT's own),
	// "app" (the app-side mempool: the app keeps the transactions, ABCI
	// InsertTx and ReapTxs, and builds each block; v0.39.2 and later; the
	// e2e app, whose app_side_mempool cometlab turns on, or your own app,
	// never the kvstore) or "nop" (no mempool: broadcast_tx fails, so the
	// load's target must not run it; v0.37.4, v0.38.2 and later; not with
	// consensus.create_empty_blocks = false). A node's own mempool key
	// wins. See docs/mempool.md. Default "flood".
	//
	//	mempool = "app"
	Mempool string `toml:"mempool"`

	// AdaptiveSync turns on every node's blocksync.adaptive_sync (v0.39
	// and v0.40; the e2e manifest's block_sync_adaptive_sync): a node that
	// falls behind keeps ingesting blocks by block sync while it runs
	// consensus. CometBFT warns of an equivocation risk on validators
	// (cometbft#5953), which the safety check watches for. A node's own
	// adaptive_sync key wins. Default false.
	//
	//	adaptive_sync = true
	AdaptiveSync bool `toml:"adaptive_sync"`

	// Partition cuts the network in groups for a while during the load
	// (see [ManifestPartition]). Default: none.
	//
	//	[partition]
	//	split = "50/50"
	//	at = "5s"
	//	duration = "6s"
	Partition *ManifestPartition `toml:"partition"`

	// Rotate runs ephemeral full nodes that come and go during the load
	// (see [ManifestRotate]). Default: none.
	//
	//	[rotate]
	//	concurrency = 2
	Rotate ManifestRotate `toml:"rotate"`

	// Zones gives the nodes zones and the latency matrix between them
	// (see [ManifestZones]); each node then names its zone. Default: none
	// (no delay).
	//
	//	[zones]
	//	matrix = "aws"
	//	[node.validator01]
	//	zone = "Tokyo"
	Zones *ManifestZones `toml:"zones"`

	// Hosts are machines the nodes run on, keyed by name ([a-z0-9_-]+),
	// for `cometlab deploy` (see [ManifestHost]); each node then names its
	// host. Default: none (a local testnet).
	//
	//	[host.h1]
	//	address = "10.0.0.11"
	//	ssh_user = "qa"
	//	[node.validator01]
	//	host = "h1"
	Hosts map[string]ManifestHost `toml:"host"`

	// TimeScale runs the testnet k times slower than real time, k >= 1
	// (at most cometbft.MaxTimeScale): every time constant the nodes obey
	// (consensus timeouts, gossip sleeps, flush throttle, the e2e app's
	// delays, PBTS synchrony, evidence age, per release line), the zones'
	// delays and every time of the load, perturbations, partition and
	// rotation ×k; every rate (the load's, send_rate/recv_rate, the zones'
	// bandwidth) ÷k. The network then does in k seconds what it did in one,
	// with k times less CPU per second, and analysis divides every figure
	// of time by k and multiplies every rate by k: summary.json and the
	// reports are in model time. A [config] override of a scaled key is
	// scaled too. "auto": k from a probe of the host (`cometlab run` only).
	// Local testnets only. See docs/timescale.md. Default 1 (real time).
	//
	//	time_scale = 4
	TimeScale any `toml:"time_scale"`

	// Sentinel puts cometlab's sentinel in front of the load target: the
	// load goes through it (see [ManifestSentinel]). Default: none.
	//
	//	[sentinel]
	//	rate = 2000
	Sentinel *ManifestSentinel `toml:"sentinel"`

	// Load describes the load driven into the testnet.
	//
	//	[load]
	//	rate = 400
	Load ManifestLoad `toml:"load"`

	// file is the name given to Parse, for error messages.
	file string
	// pos maps dotted key paths ("load.rate") to where the file sets them,
	// in file order; see keyPositions.
	pos map[string][]position
	// origin maps dotted key paths to the flag that last set them.
	origin map[string]string
	// source names what the manifest was read from when it was not
	// written in cometlab's own format ("" when it was); warnings are what
	// reading it took leniently (see [ReadOptions]).
	source   string
	warnings []string
}

// ManifestNode is one [node.NAME] table.
type ManifestNode struct {
	// Mode is the node's role: "validator", "full" or "seed". Default
	// "validator".
	//
	//	mode = "full"
	Mode string `toml:"mode"`

	// Power is the voting power, for validators only (setting it on another
	// mode is an error). Default 1.
	//
	//	power = 10
	Power *int64 `toml:"power"`

	// CometBFTVersion is this node's CometBFT release, for mixed-version
	// testnets. Default: the testnet's (or its binary).
	//
	//	cometbft_version = "v0.38.17"
	CometBFTVersion string `toml:"cometbft_version"`

	// CometBFTSource and CometBFTPatches are this node's, as the
	// testnet's. Default: the testnet's, without cometbft_version.
	//
	//	cometbft_source = "../cometbft"
	CometBFTSource  string   `toml:"cometbft_source"`
	CometBFTPatches []string `toml:"cometbft_patches"`

	// Config holds this node's config.toml overrides, in the same forms as
	// the testnet's [config]; they win over the testnet's. Default: none.
	//
	//	config = { "mempool.size" = 10000 }
	Config map[string]any `toml:"config"`

	// Zone is the node's zone, a zone of the [zones] matrix; required for
	// every node when [zones] is set. Default "" (no zones).
	//
	//	zone = "Frankfurt"
	Zone string `toml:"zone"`

	// Host is the [host.NAME] the node runs on; required for every node
	// when the manifest has hosts. Default "" (local).
	//
	//	host = "h1"
	Host string `toml:"host"`

	// Seeds are the nodes (by name) this node asks for peer addresses
	// when it starts (config.toml's p2p.seeds); topology = "as-written"
	// only. Default: none.
	//
	//	seeds = ["seed01"]
	Seeds []string `toml:"seeds"`

	// PersistentPeers are the nodes (by name) this node keeps connections
	// to, redialling them when they drop (p2p.persistent_peers); topology
	// = "as-written" only. Default: none (with no seeds either: every other
	// node).
	//
	//	persistent_peers = ["validator01", "validator02"]
	PersistentPeers []string `toml:"persistent_peers"`

	// StartAt is the height the testnet reaches before this node starts,
	// as CometBFT's e2e runner's start_at: cometlab starts the others,
	// waits for the height, starts the node and waits until it has caught
	// up (block sync) to that height, all before the load. Not for seeds,
	// absent validators or hosts. Default 0 (starts with the testnet).
	//
	//	start_at = 10
	StartAt int64 `toml:"start_at"`

	// StateSync makes a late node (start_at > 0) join by state sync, as
	// the e2e runner's state_sync: it fetches a snapshot of the app from
	// its peers (the e2e app takes them every snapshot_interval heights,
	// which some other node must set), verified by a light client against
	// the RPC of the nodes that start with the testnet, from a trusted
	// height and hash cometlab takes from the chain (/commit at its latest
	// height) just before the node starts; then it block-syncs the rest.
	// app = "e2e" only. Default false.
	//
	//	state_sync = true
	StateSync bool `toml:"state_sync"`

	// TwinOf makes the node a twin of a validator: it holds that
	// validator's signing key too, so that two processes sign for it (the
	// Twins method: a byzantine validator that equivocates). The twin is
	// not in the genesis; leave its mode and power unset. The other nodes
	// must turn its conflicting votes into DuplicateVoteEvidence, and the
	// safety check must find no fork while the twins' validators hold less
	// than 1/3 of the voting power. Local testnets only. Default "" (none).
	//
	//	twin_of = "validator01"
	TwinOf string `toml:"twin_of"`

	// ClockSkew offsets the node's clock, as a Go duration string (may be
	// negative), as CometBFT's e2e runner does: the node runs its
	// release's cometbft built with the clock_skew tag, which adds
	// COMETBFT_CLOCK_SKEW to every clock reading (the e2e app's node
	// likewise). Releases with that tag only (v1.0), on a local testnet;
	// not with an upgrade of the node. Default "" (none).
	//
	//	clock_skew = "2s"
	ClockSkew string `toml:"clock_skew"`

	// App sets some of the e2e app's settings for this node alone, over
	// the testnet's [app]: its artificial delays (check_tx_delay,
	// finalize_block_delay, prepare_proposal_delay, process_proposal_delay,
	// vote_extension_delay, as Go durations), so that one node's app is
	// slow, and the storage settings CometBFT's e2e manifests give per node
	// (persist_interval, retain_blocks, snapshot_interval). The others are
	// the network's. The e2e app only. Default none.
	//
	//	app = { prepare_proposal_delay = "1500ms" }
	App map[string]any `toml:"app"`

	// Mempool is this node's mempool, over the testnet's mempool key (see
	// [Manifest.Mempool]). Default: the testnet's.
	//
	//	mempool = "nop"
	Mempool string `toml:"mempool"`

	// AdaptiveSync is this node's blocksync.adaptive_sync, over the
	// testnet's adaptive_sync key (see [Manifest.AdaptiveSync]). Default:
	// the testnet's.
	//
	//	adaptive_sync = true
	AdaptiveSync *bool `toml:"adaptive_sync"`
}
