package manifest

// ManifestLoad is the [load] table. The expected number of transactions is
// connections × rate × duration for the constant shape, and the shape's own
// count otherwise.
type ManifestLoad struct {
	// Connections is c, the number of websocket connections sending
	// transactions (>= 1). Default 1.
	//
	//	connections = 4
	Connections int `toml:"connections,omitempty"`

	// Rate is r, the transactions per second sent on each connection (> 0;
	// an integer or a float). Default 200.
	//
	//	rate = 400
	Rate float64 `toml:"rate,omitempty"`

	// Size is s, the bytes per transaction: even, at least payload.MinSize() and at
	// most [MaxTxSize]. Default 1024.
	//
	//	size = 2048
	Size int `toml:"size"`

	// Duration is T, how long load is sent, as a Go duration string (> 0).
	// Default "60s".
	//
	//	duration = "2m"
	Duration string `toml:"duration"`

	// Pacing is how each connection spaces its sends: "even" (one every 1/r
	// s) or "burst" (loadtime's once-per-second batches). Default "even".
	//
	//	pacing = "burst"
	Pacing string `toml:"pacing"`

	// Target is the name of the node that receives the load; it may not be
	// a seed. Default "" (the first validator).
	//
	//	target = "full01"
	Target string `toml:"target"`

	// DrainTimeout is how long to wait after the load for the mempools to
	// empty, as a Go duration string (>= 0; "0s" does not wait). Default
	// "60s".
	//
	//	drain_timeout = "2m"
	DrainTimeout string `toml:"drain_timeout"`

	// LateThreshold is how far behind its schedule a send may start before
	// it counts as late, as a Go duration string (> 0). Default "10ms".
	//
	//	late_threshold = "5ms"
	LateThreshold string `toml:"late_threshold"`

	// Shape is how the rate changes over the load: "constant" (rate
	// throughout), "ramp", "square", "sine" or "trace"; the keys below
	// belong to one shape each, and giving one to another shape is an
	// error. Every rate is per connection, like rate. The expected number of
	// transactions is the shape's own count (see [Workload.ExpectedTxs]).
	// Default "constant".
	//
	//	shape = "ramp"
	Shape string `toml:"shape"`

	// RateTo is the rate at the end of a linear ramp, which goes from rate
	// to it over the duration (>= 0). Ramp only; give it or steps.
	//
	//	rate_to = 2400
	RateTo *float64 `toml:"rate_to,omitempty"`

	// Steps are the rates of a ramp in steps, each held for step; the last
	// holds until the end of the load. Ramp only; give them or rate_to.
	//
	//	steps = [200, 400, 800]
	Steps []float64 `toml:"steps,omitempty"`

	// Step is how long each of the steps lasts, as a Go duration (> 0).
	//
	//	step = "30s"
	Step string `toml:"step,omitempty"`

	// On and Off are the phases of a square wave, as Go durations: rate for
	// on (> 0), then nothing for off (> 0), repeated from the start. Square
	// only, both required.
	//
	//	on = "20s"
	//	off = "10s"
	On  string `toml:"on,omitempty"`
	Off string `toml:"off,omitempty"`

	// Amplitude and Period make the sine rate + amplitude·sin(2πt/period):
	// amplitude in tx/s (0 < amplitude <= rate, so the rate never goes below
	// 0), period a Go duration (> 0). Sine only, both required.
	//
	//	amplitude = 300
	//	period = "60s"
	Amplitude *float64 `toml:"amplitude,omitempty"`
	Period    string   `toml:"period,omitempty"`

	// Trace is a CSV file of "offset_s,rate" lines replayed as the rate (see
	// shape.ParseTrace), relative to the manifest's directory. Trace only.
	//
	//	trace = "day-compressed.csv"
	Trace string `toml:"trace,omitempty"`

	// Txs is a file of the user's own transactions, one a line in hex or
	// base64 (see load.ParseTxs), relative to the manifest's directory: they
	// are sent in order at the shape's pace instead of loadtime payloads
	// (size is then unused) and found on the chain by their SHA-256. The
	// file must hold at least the expected number of transactions. Default
	// "" (loadtime payloads).
	//
	//	txs = "signed-txs.b64"
	Txs string `toml:"txs,omitempty"`

	// Clients are the [[load.client]] tables: several load clients, each
	// with its connections, rate and client key (see [ManifestClient]);
	// connections and rate above are then not given. Default: none (one
	// client of connections × rate).
	//
	//	[[load.client]]
	//	name = "greedy"
	//	connections = 4
	//	rate = 3600
	Clients []ManifestClient `toml:"client,omitempty"`

	// Hosts are load hosts: [host.NAME] tables (a host may also run
	// nodes) from which `cometlab load --testnet` sends the load, each
	// host a share of the connections (connections ≥ the number of
	// hosts), all starting at one time. Only with a [host.*] testnet,
	// loadtime payloads and a shape without a trace file; no clients.
	// Default: none (the load is sent from the control host).
	//
	//	hosts = ["load1", "load2"]
	Hosts []string `toml:"hosts,omitempty"`

	// LaneWeights spreads the load over the mempool lanes of v2.0's e2e
	// app: lane id → weight, each transaction asking for one lane, picked
	// by weight (its payload carries the lane, which the app returns from
	// CheckTx). The lanes and their priorities are the app's ([app]
	// lanes, or its five defaults "100", "50", "10", "5" and "1"). Only
	// with app = "e2e" on v2.0, loadtime payloads and no load hosts.
	// Default: none (every transaction in the mempool's default lane).
	//
	//	lane_weights = {"100" = 1, "1" = 9}
	LaneWeights map[string]uint64 `toml:"lane_weights,omitempty"`
}
