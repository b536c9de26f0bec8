package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File names inside a run directory.
const (
	ManifestFile = "manifest.toml" // the resolved manifest
	RunFile      = "run.json"      // ids, versions, host, times, status, errors
	SentFile     = "sent.csv"      // one row per transaction the generator sent (or tried to)
	RepliesFile  = "replies.csv"   // one row per JSON-RPC reply to a broadcast
	TxsFile      = "txs.csv"       // one row per committed transaction of this run
	BlocksFile   = "blocks.csv"    // one row per block of the run's height range
	AdoptionFile = "adoption.csv"  // height, node, local time the node committed it
	EventsFile   = "events.csv"    // node process starts and exits, perturbations, link cuts
	MetricsFile  = "metrics.csv"   // Prometheus series of every node, long format
	ResourceFile = "resources.csv" // process resources of every local node, and the host's load1
	SummaryFile  = "summary.json"  // the figures, keyed by metric-dictionary id
	FindingsFile = "findings.json" // the issues a run discovered: node logs scanned, crashes
	ReportFile   = "report.md"     // the Markdown report
	// NodeFiguresFile is every node's per-node figures of summary.json,
	// one row per node (written with the report).
	NodeFiguresFile = "node_figures.csv"
	ReportHTML      = "report.html" // the same report as one self-contained HTML file
	PlotsDir        = "plots"       // report images
	LogsDir         = "logs"        // node logs, one file per node
	NodesDir        = "nodes"       // node homes (ordinary CometBFT homes)
)

// HarnessProcess is the resources.csv name of cometlab's own process.
const HarnessProcess = "cometlab"

// Status values of a run.
const (
	StatusRunning  = "running"  // the run is going on, or cometlab died without a word
	StatusComplete = "complete" // every stage finished
	StatusPartial  = "partial"  // interrupted or cut short; what is on disk is valid
	StatusFailed   = "failed"   // an error ended the run; see Errors
)

// Absent is run.json's absent: validators in the genesis never started.
type Absent struct {
	Validators []string `json:"validators"`
	Power      int64    `json:"power"`       // their voting power summed
	TotalPower int64    `json:"total_power"` // the genesis validators' voting power summed
}

// Share is the absent voting power over the total (0 for none).
func (a *Absent) Share() float64 {
	if a == nil || a.TotalPower == 0 {
		return 0
	}
	return float64(a.Power) / float64(a.TotalPower)
}

// Run is run.json: what a run was and how it ended.
type Run struct {
	ID              string   `json:"id"` // UUID; its bytes are the payload id
	Status          string   `json:"status"`
	Errors          []string `json:"errors,omitempty"`
	CometlabVersion string   `json:"cometlab_version"`
	CometBFTVersion string   `json:"cometbft_version"` // as reported by the nodes
	App             string   `json:"app"`
	// AppConfig holds the app's settings (the e2e app's app.toml keys);
	// absent for the kvstore.
	AppConfig map[string]any `json:"app_config,omitempty"`
	Host      Host           `json:"host"`
	Load      Load           `json:"load"`
	Target    string         `json:"target"`   // node name (or endpoint) that received the load
	Endpoint  string         `json:"endpoint"` // websocket URL the load went to
	Nodes     []Node         `json:"nodes,omitempty"`
	Zones     *Zones         `json:"zones,omitempty"` // nil without [zones]
	// Topology is the manifest's topology when it is not the mesh
	// ("seeds" or "as-written"); "" for the mesh.
	Topology string `json:"topology,omitempty"`
	// Absent are the validators in the genesis that never started (the
	// manifest's absent key); nil when every validator ran.
	Absent *Absent `json:"absent,omitempty"`
	// Evidence is how many duplicate-vote evidences the run was to inject
	// (the manifest's evidence key); what was sent is in events.csv
	// (evidence events) and what was committed in evidence.csv.
	Evidence int `json:"evidence,omitempty"`
	// TimeScale is the manifest's time_scale k when it is not 1: the
	// testnet ran k times slower than real time. Load is the model's (as
	// manifest.toml), the records (CSV files, the times and drain of
	// run.json) are the host's, and analysis turns every figure back into
	// model time (summary.json): see docs/timescale.md. Absent (0) for a
	// run in real time.
	TimeScale float64 `json:"time_scale,omitempty"`
	// TimeScaleAuto is how time_scale = "auto" chose TimeScale (its
	// probes); nil for a k given as a number.
	TimeScaleAuto *TimeScaleAuto `json:"time_scale_auto,omitempty"`
	// KeyType is the validators' key type (CometBFT's name: "ed25519",
	// "ml_dsa_65", …; the manifest's key_type); "" in runs made before
	// cometlab had key types, which were ed25519.
	KeyType string `json:"key_type,omitempty"`
	// LibP2P says the nodes networked with go-libp2p (QUIC over UDP; the
	// manifest's libp2p key); false for CometBFT's own p2p.
	LibP2P bool `json:"libp2p,omitempty"`
	// UDPRelays is what the UDP relays of a libp2p testnet with relayed
	// links carried and dropped; nil without them.
	UDPRelays *UDPRelays `json:"udp_relays,omitempty"`
	// Sentinel is the sentinel the load went through; nil when the load
	// went to the target directly.
	Sentinel *Sentinel `json:"sentinel,omitempty"`
	// LoadHosts are the hosts the load was sent from ([load] hosts of a
	// deployed testnet), each with its share of the connections; absent
	// when it was sent from this host.
	LoadHosts []LoadHost `json:"load_hosts,omitempty"`
	// Clocks are the clock offsets of the testnet's hosts from this
	// host's, measured over ssh before a load from load hosts: latency is
	// block time (the validators' clocks) minus send time (the load
	// host's), so their differences bound its error (see ClockBound).
	Clocks      []Clock   `json:"clocks,omitempty"`
	Started     time.Time `json:"started"`
	LoadStart   time.Time `json:"load_start,omitzero"`
	LoadEnd     time.Time `json:"load_end,omitzero"`
	Ended       time.Time `json:"ended,omitzero"`
	FirstHeight int64     `json:"first_height,omitempty"` // first height that could hold the run's txs
	LastHeight  int64     `json:"last_height,omitempty"`  // last height walked
	// Drain is how the mempools emptied after the load; nil when the run
	// did not wait for them (no read-back, or it ended before).
	Drain *Drain `json:"drain,omitempty"`
	// Sources are the source trees and patched releases the nodes were
	// built from (the manifest's cometbft_source, cometbft_patches), one
	// per distinct code; none when every node ran a release as served.
	Sources []Source `json:"sources,omitempty"`
	// Binaries are the programs the nodes ran (cometbft, or the e2e app
	// node that runs in its place), each with its build information.
	Binaries []Binary `json:"binaries,omitempty"`
}

// Drain is the wait after the load for every node's mempool to empty,
// polled over RPC (num_unconfirmed_txs) every 200 ms.
type Drain struct {
	// Seconds is from the load's end until every mempool was empty, or
	// until the wait gave up (Drained false).
	Seconds float64 `json:"seconds"`
	Drained bool    `json:"drained"`
	// Left says what the mempools still held when the wait gave up
	// ("validator01: 120 txs; …"); Skipped names the nodes not waited for
	// because they were down, with why.
	Left    string `json:"left,omitempty"`
	Skipped string `json:"skipped,omitempty"`
	// App is what the drain waited for instead of the nodes whose
	// transactions wait in the app (mempool = "app"), which no RPC
	// counts: heights, one proposer turn per validator; "" without them.
	App string `json:"app,omitempty"`
}

// ClientOf returns the index in l.Clients of the client that connection
// conn belongs to, or -1 (no clients, or a connection of none).
func (l Load) ClientOf(conn int) int {
	for i, c := range l.Clients {
		if conn >= c.FirstConn && conn < c.FirstConn+c.Connections {
			return i
		}
	}
	return -1
}

// LoadHost is a host a run's load was sent from: its connections are
// FirstConn … FirstConn+Connections−1 in sent.csv and replies.csv, merged
// from its own send log (kept in hosts/NAME/).
type LoadHost struct {
	Name        string `json:"name"`
	FirstConn   int    `json:"first_conn"`
	Connections int    `json:"connections"`
	Sent        int64  `json:"sent"`   // sends written
	Unsent      int64  `json:"unsent"` // sends that could not be made
	// Error is why its load failed; "" when it ran to its end.
	Error string `json:"error,omitempty"`
}

// Clock is a host's clock offset: the host's clock read OffsetNs more
// than the control host's, give or take UncertaintyNs.
type Clock struct {
	Host          string `json:"host"`
	Role          string `json:"role"` // "load", "validators", "load, validators", "nodes"
	OffsetNs      int64  `json:"offset_ns"`
	UncertaintyNs int64  `json:"uncertainty_ns"`
}

// ClockBound is the largest error the hosts' clocks can put into a
// latency: over every pair of a load host and a validators' host, the
// difference of their offsets plus both uncertainties; 0 without load
// hosts among the clocks.
func ClockBound(clocks []Clock) int64 {
	var bound int64
	for _, l := range clocks {
		if !strings.Contains(l.Role, "load") {
			continue
		}
		for _, v := range clocks {
			if !strings.Contains(v.Role, "validators") {
				continue
			}
			d := l.OffsetNs - v.OffsetNs
			if d < 0 {
				d = -d
			}
			bound = max(bound, d+l.UncertaintyNs+v.UncertaintyNs)
		}
	}
	return bound
}

// Sentinel is the sentinel a run's load went through (its [sentinel]).
type Sentinel struct {
	Addr     string `json:"addr"`              // where the load connected
	Metrics  string `json:"metrics,omitempty"` // its Prometheus /metrics address
	Upstream string `json:"upstream"`          // the RPC address of the node behind it
	Settings string `json:"settings"`          // its limits and pacing, for the report
}

// Refusal codes: a JSON-RPC error whose code is in [RefusalCodeMin,
// RefusalCodeMax] is a gateway's explicit refusal of the transaction (one
// of its limits: cometlab's sentinel uses -32001 … -32005), counted as
// refused rather than rejected. CometBFT itself uses none of these codes
// (its errors are -32700, -32600 … -32603 and -32000).
const (
	RefusalCodeMin = -32099
	RefusalCodeMax = -32001
)

// IsRefusal reports whether a reply's error code is a gateway's refusal.
func IsRefusal(code int64) bool { return code >= RefusalCodeMin && code <= RefusalCodeMax }

// ExpectedTxs is the number of transactions the load should send: Expected
// for a shaped load, otherwise c·r·duration, rounded down.
func (l Load) ExpectedTxs() int64 {
	if l.Expected > 0 {
		return l.Expected
	}
	return int64(float64(l.Connections) * l.Rate * l.DurationS)
}

// Shaped reports whether the load's rate changed over the run (a shape
// other than constant).
func (l Load) Shaped() bool { return l.Shape != "" }

// Nanoseconds per second and per millisecond: the run directory keeps
// times as Unix nanoseconds and durations in float seconds or milliseconds.
const (
	NsPerS  = 1e9
	NsPerMs = 1e6
)

// Seconds is a duration the records keep in float seconds (duration_s,
// cool_down_s, …) as a time.Duration.
func Seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Host describes the machine a run ran on.
type Host struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
	// CPUModel is the processor's model name (/proc/cpuinfo's first
	// "model name"); "" when unknown and in runs before it was recorded.
	CPUModel string `json:"cpu_model,omitempty"`
	MemBytes int64  `json:"mem_bytes,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
	Go       string `json:"go"`
}

// Node describes one node of the testnet.
type Node struct {
	Name    string `json:"name"`
	Mode    string `json:"mode"`
	Version string `json:"version"`
	RPC     string `json:"rpc"` // http://127.0.0.1:port
	P2P     string `json:"p2p"`
	Metrics string `json:"metrics,omitempty"`
	Home    string `json:"home,omitempty"` // relative to the run directory
	Zone    string `json:"zone,omitempty"` // its zone of Run.Zones
	// Seeds and PersistentPeers name the node's configured seeds and
	// persistent peers when the topology is not the mesh (Run.Topology).
	Seeds           []string `json:"seeds,omitempty"`
	PersistentPeers []string `json:"persistent_peers,omitempty"`
	// UpgradeTo is the release an upgrade perturbation starts the node's
	// home with during the run (Version is the one it starts with); when
	// is in events.csv (its perturb-begin and start events).
	UpgradeTo string `json:"upgrade_to,omitempty"`
	// StartAt is the height the chain reached before the node started (a
	// late node: the manifest's start_at); 0 for a node started with the
	// testnet.
	StartAt int64 `json:"start_at,omitempty"`
	// TwinOf is the validator whose signing key the node holds too (a
	// twin: the manifest's twin_of); "" for a node that is no twin.
	TwinOf string `json:"twin_of,omitempty"`
	// ClockSkewS is the offset of the node's clock in seconds (the
	// manifest's clock_skew: a clock_skew build of its release); 0 for
	// none.
	ClockSkewS float64 `json:"clock_skew_s,omitempty"`
	// App holds the node's own e2e app settings (the manifest's [node.X]
	// app: a delay of one node's app), over the run's app_config; nil for
	// none.
	App map[string]any `json:"app,omitempty"`
	// MempoolCapacity is how many of the run's transactions the node's
	// mempool holds: its mempool.size, or mempool.max_txs_bytes over the
	// load's transaction size when that is fewer (CometBFT's defaults
	// where the config sets neither); 0 in runs before it was recorded.
	MempoolCapacity int64 `json:"mempool_capacity_txs,omitempty"`
	// Mempool is the node's mempool type when it is not flood: "app" (the
	// app keeps the transactions; the node's num_unconfirmed_txs and
	// mempool_size are 0 by construction) or "nop" (none); "" for flood.
	Mempool string `json:"mempool,omitempty"`
	// AdaptiveSync: the node ran blocksync.adaptive_sync.
	AdaptiveSync bool `json:"adaptive_sync,omitempty"`
}

// DefaultMempoolSize is CometBFT's default mempool.size (every release
// v0.34–v1.x), the capacity analysis assumes for a node whose run did not
// record one.
const DefaultMempoolSize = 5000

// DefaultMempoolMaxTxsBytes is CometBFT's default mempool.max_txs_bytes
// (1 GiB, every release v0.34–v1.x).
const DefaultMempoolMaxTxsBytes = 1 << 30

// Zones is the [zones] of a run's testnet: the latency matrix its relays
// applied between the zones of its nodes, and the round trips they
// measured.
type Zones struct {
	// Matrix is the matrix's source: "aws" (CometBFT's) or a CSV's path.
	Matrix string `json:"matrix"`
	// Jitter is each delay's standard deviation as a fraction of it.
	Jitter float64 `json:"jitter,omitempty"`
	// BandwidthMbps is each inter-zone link's capacity each way, Mbit/s,
	// unless LinkMbps gives the pair its own; 0: no limit.
	BandwidthMbps float64 `json:"bandwidth_mbps,omitempty"`
	// Zones are the zones the nodes are in, in the matrix's order.
	Zones []string `json:"zones"`
	// DelayMs[i][j] is the one-way delay from Zones[i] to Zones[j], in ms.
	DelayMs [][]float64 `json:"delay_ms"`
	// LinkMbps[i][j] is the capacity from Zones[i] to Zones[j], Mbit/s
	// (0: no limit), when [zones.bandwidth] gave pairs of zones their own;
	// nil when BandwidthMbps is every inter-zone link's.
	LinkMbps [][]float64 `json:"link_mbps,omitempty"`
	// RoundTrips are the round trips the relays measured per ordered pair
	// of nodes (From dialled To), from the opening exchange of each p2p
	// connection; see links.Links.RoundTrips.
	RoundTrips []RoundTrip `json:"round_trips,omitempty"`
	// OnHosts says the nodes ran on [host.*] hosts (cometlab deploy): the
	// zones label them and the delays between zones were the hosts' own
	// network's; the matrix was not emulated and is there for reference.
	OnHosts bool `json:"on_hosts,omitempty"`
}

// UDPRelays is what the UDP relays (links.Links.UDPStats) carried: the
// datagram bytes per ordered pair of nodes, and the datagrams dropped
// because they came from no node's listener (a path around the
// emulation), on a cut or partitioned link, or on a full bandwidth queue.
type UDPRelays struct {
	Bytes   []PairBytes `json:"bytes"`
	Unknown int64       `json:"unknown_source_datagrams"`
	Severed int64       `json:"severed_datagrams"`
	Queued  int64       `json:"queue_dropped_datagrams"`
}

// PairBytes is the bytes node From sent node To.
type PairBytes struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Bytes int64  `json:"bytes"`
}

// RoundTrip is the measured round trip of the p2p connections From
// dialled to To: N connections, the smallest and the median, in ms.
type RoundTrip struct {
	From     string  `json:"from"`
	To       string  `json:"to"`
	N        int     `json:"n"`
	MinMs    float64 `json:"min_ms"`
	MedianMs float64 `json:"median_ms"`
}

// Delay returns the one-way delay in ms from zone a to zone b, and false
// when either is not one of z.Zones.
func (z Zones) Delay(a, b string) (float64, bool) {
	i, j := slices.Index(z.Zones, a), slices.Index(z.Zones, b)
	if i < 0 || j < 0 || i >= len(z.DelayMs) || j >= len(z.DelayMs[i]) {
		return 0, false
	}
	return z.DelayMs[i][j], true
}

// WriteJSON writes v to path atomically (temporary file, then rename), so a
// reader never sees half a file.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes data to path through a temporary file and a rename.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadJSON reads a JSON file into v.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// ReadRun reads dir/run.json.
func ReadRun(dir string) (Run, error) {
	var r Run
	err := ReadJSON(filepath.Join(dir, RunFile), &r)
	return r, err
}

// RelDir is dir relative to root, slash-separated (dir as it is, slashed,
// where it has no path relative to root): how a record names a directory
// under its own.
func RelDir(root, dir string) string {
	if r, err := filepath.Rel(root, dir); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(dir)
}
