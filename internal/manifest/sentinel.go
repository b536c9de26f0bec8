package manifest

import (
	"maps"
	"math"
	"slices"
)

// ManifestSentinel is the [sentinel] table: the run puts cometlab's
// sentinel (a fair, pacing transaction gateway, `cometlab sentinel`) in
// front of the load target's RPC, and the load goes through it. Every key
// is optional; absent keys take the defaults of `cometlab sentinel`
// (its --help), zero values of the numbers included.
//
//	[sentinel]
//	rate = 2000
//	[sentinel.client.greedy]
//	weight = 1
type ManifestSentinel struct {
	// Rate is each client's token bucket in broadcasts per second; over it
	// a broadcast is refused (-32001). 0 means no limit. Default 2000.
	//
	//	rate = 500
	Rate *float64 `toml:"rate,omitempty"`

	// Burst is the depth of each client's bucket (>= 1 with a rate).
	// Default 200.
	//
	//	burst = 50
	Burst *int `toml:"burst,omitempty"`

	// ClientQueue and Buffer bound the fair queue: txs queued per client
	// (over it -32002) and in all (over it -32003). Defaults 2000 and
	// 20000.
	//
	//	client_queue = 500
	ClientQueue int `toml:"client_queue,omitempty"`
	Buffer      int `toml:"buffer,omitempty"`

	// MaxRate forwards to the node at this fixed rate in tx/s instead of
	// pacing by its mempool. Default 0 (pace).
	//
	//	max_rate = 1400
	MaxRate float64 `toml:"max_rate,omitempty"`

	// PaceTarget is the most txs pacing lets the node's mempool hold.
	// Default 4750 (95 % of the default mempool.size).
	//
	//	pace_target = 9500
	PaceTarget int64 `toml:"pace_target,omitempty"`

	// NoQueue turns pacing and fairness off: each tx that passes its
	// client's bucket is forwarded at once (the plain rate-limiting proxy,
	// the baseline pacing and fairness are measured against). Default
	// false.
	//
	//	no_queue = true
	NoQueue bool `toml:"no_queue,omitempty"`

	// Clients overrides the limits of the client keys it names
	// ([sentinel.client.KEY]); KEY is a [[load.client]]'s key.
	Clients map[string]ManifestSentinelClient `toml:"client,omitempty"`
}

// ManifestSentinelClient is one [sentinel.client.KEY] table: that key's
// own limits, absent ones taken from [sentinel].
type ManifestSentinelClient struct {
	// Rate and Burst replace the client's token bucket (rate 0: no limit).
	Rate  *float64 `toml:"rate,omitempty"`
	Burst *int     `toml:"burst,omitempty"`
	// Weight is the client's share in the fair queue (>= 1). Default 1.
	Weight int `toml:"weight,omitempty"`
}

// resolveSentinel checks [sentinel]; nil without one. Keys that name no
// load client are allowed (a client may come from outside the run).
func (m *Manifest) resolveSentinel(ps *problems) *ManifestSentinel {
	s := m.Sentinel
	if s == nil {
		return nil
	}
	bucket := func(parts []string, rate *float64, burst *int) {
		if rate != nil && (!(*rate >= 0) || math.IsInf(*rate, 0)) {
			ps.add(append(parts, "rate"), "must be >= 0 and finite (0: no limit), got %v", *rate)
		}
		if burst != nil && *burst < 1 {
			ps.add(append(parts, "burst"), "must be >= 1, got %d", *burst)
		}
	}
	bucket(f("sentinel"), s.Rate, s.Burst)
	for k, v := range map[string]int{"client_queue": s.ClientQueue, "buffer": s.Buffer} {
		if v < 0 {
			ps.add(f("sentinel", k), "must be >= 1 (absent: the default), got %d", v)
		}
	}
	if !(s.MaxRate >= 0) || math.IsInf(s.MaxRate, 0) {
		ps.add(f("sentinel", "max_rate"), "must be >= 0 and finite (0: pace), got %v", s.MaxRate)
	}
	if s.PaceTarget < 0 {
		ps.add(f("sentinel", "pace_target"), "must be >= 1 (absent: the default), got %d", s.PaceTarget)
	}
	for _, key := range slices.Sorted(maps.Keys(s.Clients)) {
		c := s.Clients[key]
		bucket(f("sentinel", "client", key), c.Rate, c.Burst)
		if c.Weight < 0 {
			ps.add(f("sentinel", "client", key, "weight"), "must be >= 1 (absent: 1), got %d", c.Weight)
		}
	}
	out := *s
	out.Clients = maps.Clone(s.Clients)
	return &out
}
