package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/sentinel"
)

// sentinelName is the sentinel's name in metrics.csv, beside the nodes'.
const sentinelName = "sentinel"

// labSentinel is the sentinel a run puts in front of its load target
// ([sentinel]): it runs in cometlab's process, on loopback, from before the
// load until the mempools drained.
type labSentinel struct {
	s      *sentinel.Sentinel
	cancel context.CancelFunc
	done   chan error
	rec    results.Sentinel
}

// sentinelOptions turns [sentinel] into the sentinel's options in front of
// upstream (http://host:port), on loopback ports the kernel picks; absent
// keys keep the defaults of `cometlab sentinel`. Clients are told apart by
// ClientKeyHeader, which each [[load.client]] sends.
func sentinelOptions(ms *manifest.ManifestSentinel, upstream string) sentinel.Options {
	o := sentinel.DefaultOptions()
	o.Upstream, o.Listen, o.MetricsListen = upstream, "127.0.0.1:0", "127.0.0.1:0"
	o.ClientHeader = ClientKeyHeader
	o.Limits.MaxConns = 0 // the lab's own clients open what the manifest says
	if ms.Rate != nil {
		o.Limits.Rate = *ms.Rate
	}
	if ms.Burst != nil {
		o.Limits.Burst = *ms.Burst
	}
	if ms.ClientQueue > 0 {
		o.ClientQueue = ms.ClientQueue
	}
	if ms.Buffer > 0 {
		o.Buffer = ms.Buffer
	}
	o.MaxRate, o.NoQueue = ms.MaxRate, ms.NoQueue
	if ms.PaceTarget > 0 {
		o.Pace.Target = ms.PaceTarget
	}
	for key, c := range ms.Clients {
		l := o.Limits
		if c.Rate != nil {
			l.Rate = *c.Rate
		}
		if c.Burst != nil {
			l.Burst = *c.Burst
		}
		if c.Weight > 0 {
			l.Weight = c.Weight
		}
		if o.Overrides == nil {
			o.Overrides = map[string]sentinel.Limits{}
		}
		o.Overrides[key] = l
	}
	return o
}

// sentinelSettings describes o's limits and pacing in a phrase for the
// report: "per client 2000 tx/s (burst 200); fair queues of 2000 per
// client, 20000 in all; paced by the node's mempool (target 4750 txs)".
func sentinelSettings(o sentinel.Options) string {
	bucket := func(l sentinel.Limits) string {
		if l.Rate == 0 {
			return "no rate limit"
		}
		return fmt.Sprintf("%g tx/s (burst %d)", l.Rate, l.Burst)
	}
	parts := []string{"per client " + bucket(o.Limits)}
	switch {
	case o.NoQueue:
		parts = append(parts, "no queue, no pacing: each tx forwarded at once (the plain rate-limiting proxy)")
	default:
		parts = append(parts, fmt.Sprintf("fair queues of %s per client, %s in all", fmt.Sprint(o.ClientQueue), fmt.Sprint(o.Buffer)))
		if o.MaxRate > 0 {
			parts = append(parts, fmt.Sprintf("forwarded at a fixed %g tx/s", o.MaxRate))
		} else {
			parts = append(parts, "paced by the node's mempool (target "+fmt.Sprint(o.Pace.Target)+" txs)")
		}
	}
	var over []string
	for key, l := range o.Overrides {
		over = append(over, fmt.Sprintf("%s: %s, weight %d", key, bucket(l), l.Weight))
	}
	slices.Sort(over)
	if len(over) > 0 {
		parts = append(parts, "overrides "+strings.Join(over, "; "))
	}
	return strings.Join(parts, "; ")
}

// startSentinel starts the sentinel of ms in front of upstream.
func startSentinel(ms *manifest.ManifestSentinel, upstream string, logger *slog.Logger) (*labSentinel, error) {
	o := sentinelOptions(ms, upstream)
	s, err := sentinel.New(o, logger.With("component", "sentinel"), nil)
	if err != nil {
		return nil, fmt.Errorf("sentinel: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ls := &labSentinel{s: s, cancel: cancel, done: make(chan error, 1),
		rec: results.Sentinel{Addr: s.Addr(), Metrics: s.MetricsAddr(), Upstream: upstream, Settings: sentinelSettings(o)}}
	go func() { ls.done <- s.Run(ctx) }()
	return ls, nil
}

// endpoint is the websocket URL the load connects to.
func (ls *labSentinel) endpoint() string { return rpc.WSAddr(ls.s.Addr()) }

// target is the sentinel's /metrics as a scrape target.
func (ls *labSentinel) target() collect.Target {
	return collect.Target{Name: sentinelName, URL: "http://" + ls.s.MetricsAddr() + "/metrics"}
}

// waitForwarded waits until the sentinel has forwarded every transaction
// it accepted and the node answered each, at most timeout; it returns how
// many are still pending.
func (ls *labSentinel) waitForwarded(ctx context.Context, timeout time.Duration) int64 {
	deadline := time.Now().Add(timeout)
	for {
		n := ls.s.Pending()
		if n == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop stops the sentinel and waits for it.
func (ls *labSentinel) stop() error {
	ls.cancel()
	return <-ls.done
}

// clientGenerators returns the generators of a load of several clients
// (one per [[load.client]], connections numbered apart, each sending its
// key), or nil for a load of one client.
func clientGenerators(cfg load.Config, w manifest.Workload, sent, replies *results.Writer, logger *slog.Logger) (load.Group, error) {
	var gr load.Group
	for i, c := range w.Clients {
		cc := cfg
		cc.Connections, cc.Rate, cc.ConnOffset = c.Connections, c.Rate, w.FirstConn(i)
		cc.Header = http.Header{ClientKeyHeader: {c.Key}}
		g, err := load.New(cc, sent, replies, logger.With("client", c.Name))
		if err != nil {
			return nil, fmt.Errorf("client %s: %w", c.Name, err)
		}
		gr = append(gr, g)
	}
	return gr, nil
}
