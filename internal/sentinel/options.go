package sentinel

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"
)

// Options configure a Sentinel. Zero values take the defaults of
// DefaultOptions where one is named.
type Options struct {
	Upstream string // the node's RPC: http://host:port (required)
	Listen   string // where clients connect, host:port (required; port 0 picks one)
	// MetricsListen is a loopback host:port for Prometheus' /metrics; ""
	// serves none.
	MetricsListen string

	// MaxBodyBytes, MaxBatch and MaxHeaderBytes mirror the node's
	// rpc.max_body_bytes (also its websocket frame limit),
	// rpc.max_request_batch_size and rpc.max_header_bytes.
	MaxBodyBytes   int64
	MaxBatch       int
	MaxHeaderBytes int

	// ClientHeader names a request header (e.g. X-Client-Key) whose value
	// is the client key; APIKeyParam names a URL query parameter that is.
	// Without either, or when the request carries neither, the key is the
	// client's IP address: the remote address, or — when the remote
	// address is in TrustedProxies — the last X-Forwarded-For address not
	// in TrustedProxies.
	ClientHeader   string
	APIKeyParam    string
	TrustedProxies []netip.Prefix

	// Limits applies to every client; Overrides replaces it for the keys
	// it names.
	Limits    Limits
	Overrides map[string]Limits

	// ClientQueue and Buffer bound the fair queue: txs per client and in
	// all. Quantum is deficit round robin's credit per turn, in bytes.
	ClientQueue int
	Buffer      int
	Quantum     int

	// Pace sets the pacing controller (Pacer); MaxRate > 0 replaces it with a fixed
	// forwarding rate (tx/s). PollInterval is how often the node's mempool
	// and height are read.
	Pace         PaceConfig
	MaxRate      float64
	PollInterval time.Duration
	// NoQueue turns pacing and fairness off: a tx that passes the client's
	// token bucket is forwarded at once, as the client sent it, and the
	// client gets the node's reply (the plain rate-limiting proxy).
	NoQueue bool
	// Workers is the number of concurrent forwards to the node. Each waits
	// for the node's CheckTx (broadcast_tx_sync), which stalls while the
	// node commits a block: with 16 the bench forwarded no more than ~700
	// tx/s whatever the pace.
	Workers int
	// DrainTimeout is how long a stopping sentinel goes on forwarding what
	// it queued (without a spool); what is left then is lost and counted.
	DrainTimeout time.Duration

	// Spool is a directory for the on-disk queue of accepted
	// broadcast_tx_async txs not yet forwarded; "" keeps them in memory only.
	Spool string
	// Trace, when set, is a file the pacing observations are written to
	// (CSV: at_ns,mempool,height,forwarded,full,rate), for replay by the
	// pacer's tests.
	Trace string
}

// Limits are one client's limits.
type Limits struct {
	Rate     float64 // broadcasts per second; 0 means no limit
	Burst    int     // token bucket depth (broadcasts)
	ReadRate float64 // read-only calls per second; 0 means no limit
	// ReadBurst is the read bucket's depth.
	ReadBurst int
	MaxConns  int // open websocket connections plus HTTP requests in flight; 0 means no limit
	Weight    int // deficit round robin weight, ≥ 1
}

// DefaultOptions returns the defaults: the node's own request limits, 2,000
// broadcasts/s per client (burst 200), 100 reads/s, 32 connections, a
// 2,000-tx client queue in a 20,000-tx buffer, and AIMD pacing.
func DefaultOptions() Options {
	return Options{
		MaxBodyBytes: 1_000_000, MaxBatch: 10, MaxHeaderBytes: 1 << 20,
		Limits:      Limits{Rate: 2000, Burst: 200, ReadRate: 100, ReadBurst: 100, MaxConns: 32, Weight: 1},
		ClientQueue: 2000, Buffer: 20_000, Quantum: 1500,
		Pace: DefaultPaceConfig(), PollInterval: 250 * time.Millisecond,
		Workers: 128, DrainTimeout: 5 * time.Second,
	}
}

// limits returns key's limits.
func (o *Options) limits(key string) Limits {
	if l, ok := o.Overrides[key]; ok {
		return l
	}
	return o.Limits
}

// Validate returns every problem with o at once.
func (o *Options) Validate() error {
	var errs []error
	if u, err := url.Parse(o.Upstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("upstream %q: want http://host:port", o.Upstream))
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		errs = append(errs, fmt.Errorf("listen %q: %w", o.Listen, err))
	}
	if o.MetricsListen != "" {
		if h, _, err := net.SplitHostPort(o.MetricsListen); err != nil {
			errs = append(errs, fmt.Errorf("metrics listen %q: %w", o.MetricsListen, err))
		} else if ip, err := netip.ParseAddr(h); (err != nil || !ip.IsLoopback()) && h != "localhost" {
			errs = append(errs, fmt.Errorf("metrics listen %q: want a loopback address", o.MetricsListen))
		}
	}
	if o.MaxBodyBytes <= 0 || o.MaxBatch <= 0 || o.MaxHeaderBytes <= 0 {
		errs = append(errs, errors.New("max body bytes, max batch and max header bytes must be positive"))
	}
	check := func(what string, l Limits) {
		if l.Rate < 0 || l.ReadRate < 0 || l.Burst < 0 || l.ReadBurst < 0 || l.MaxConns < 0 {
			errs = append(errs, fmt.Errorf("%s: limits must not be negative", what))
		}
		if l.Rate > 0 && l.Burst < 1 || l.ReadRate > 0 && l.ReadBurst < 1 {
			errs = append(errs, fmt.Errorf("%s: a rate needs a burst of at least 1", what))
		}
		if l.Weight < 1 {
			errs = append(errs, fmt.Errorf("%s: weight %d: want at least 1", what, l.Weight))
		}
	}
	check("limits", o.Limits)
	for k, l := range o.Overrides {
		check(fmt.Sprintf("override %q", k), l)
	}
	if o.ClientQueue < 1 || o.Buffer < 1 || o.Quantum < 1 {
		errs = append(errs, errors.New("client queue, buffer and quantum must be at least 1"))
	}
	if o.MaxRate < 0 {
		errs = append(errs, fmt.Errorf("max rate %g: must not be negative", o.MaxRate))
	}
	p := o.Pace
	if o.MaxRate == 0 && !o.NoQueue && (p.Target < 1 || p.Blocks <= 0 || p.Min <= 0 || p.Max < p.Min || p.Increase < 0 ||
		p.Decrease <= 0 || p.Decrease >= 1 || p.Alpha <= 0 || p.Alpha > 1) {
		errs = append(errs, fmt.Errorf("pacing %+v: want target ≥ 1, blocks > 0, 0 < min ≤ max, 0 < decrease < 1, 0 < alpha ≤ 1", p))
	}
	if o.PollInterval <= 0 || o.Workers < 1 {
		errs = append(errs, errors.New("poll interval and workers must be positive"))
	}
	return errors.Join(errs...)
}
