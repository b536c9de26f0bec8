package main

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/sentinel"
)

// sentinelFlags bind the sentinel command's flags; rates parse as people
// write them (400/s) and are set into Options by options.
type sentinelFlags struct {
	o                                      sentinel.Options
	rate, readRate, maxRate, min, max, ini string
	burst, readBurst, maxConns             int
	proxies, overrides                     []string
	verbose                                bool
}

func (f *sentinelFlags) register(fs *pflag.FlagSet) {
	d := sentinel.DefaultOptions()
	f.o = d
	fs.StringVar(&f.o.Upstream, "upstream", "http://127.0.0.1:26657", "the node's RPC (http://host:port) the sentinel stands in front of")
	fs.StringVar(&f.o.Listen, "listen", "127.0.0.1:26667", "host:port clients connect to: JSON-RPC on POST /, GET /<method>?args and ws://…/websocket")
	fs.StringVar(&f.o.MetricsListen, "metrics", "127.0.0.1:26668", "loopback host:port serving Prometheus /metrics (\"\" for none)")
	fs.StringVar(&f.rate, "rate", "2000/s", "per-client token bucket: broadcasts per second (0: no limit); over it a broadcast is refused (-32001, HTTP 429)")
	fs.IntVar(&f.burst, "burst", d.Limits.Burst, "per-client token bucket depth (broadcasts)")
	fs.StringVar(&f.readRate, "read-rate", "100/s", "per-client limit on read-only calls and subscriptions (0: no limit)")
	fs.IntVar(&f.readBurst, "read-burst", d.Limits.ReadBurst, "depth of the read-only bucket")
	fs.IntVar(&f.maxConns, "max-conns", d.Limits.MaxConns, "open websocket connections plus HTTP requests in flight per client (0: no limit); over it: -32004, HTTP 429")
	fs.StringArrayVar(&f.overrides, "client-limit", nil, "per-key limits, repeatable: KEY=RATE[,burst=N][,weight=N][,conns=N] (weight: the key's share in the fair queue)")
	fs.StringVar(&f.o.ClientHeader, "client-header", "X-Client-Key", "request header whose value is the client key (cometlab load --client-key sends it)")
	fs.StringVar(&f.o.APIKeyParam, "api-key-param", "", "URL query parameter whose value is the client key, e.g. apikey")
	fs.StringArrayVar(&f.proxies, "trusted-proxy", nil, "CIDR of a proxy whose X-Forwarded-For is believed, repeatable; otherwise a client without a key is its remote IP")
	fs.IntVar(&f.o.ClientQueue, "client-queue", d.ClientQueue, "txs queued per client; over it: -32002 client queue full, HTTP 429")
	fs.IntVar(&f.o.Buffer, "buffer", d.Buffer, "txs queued in all; over it: -32003 global buffer full, HTTP 429")
	fs.IntVar(&f.o.Quantum, "quantum", d.Quantum, "deficit round robin credit per turn, bytes (times the client's weight)")
	fs.StringVar(&f.maxRate, "max-rate", "0", "forward to the node at this fixed rate (e.g. 1400/s) instead of pacing by the node's mempool")
	fs.Int64Var(&f.o.Pace.Target, "pace-target", d.Pace.Target, "pacing: most txs to let the node's mempool hold, ~95 % of its mempool.size; above it and growing, or on \"mempool is full\", the rate backs off")
	fs.Float64Var(&f.o.Pace.Blocks, "pace-blocks", d.Pace.Blocks, "pacing: working mempool target in blocks of txs (measured commit rate × block interval), capped by --pace-target")
	fs.StringVar(&f.min, "pace-min", fmt.Sprint(d.Pace.Min, "/s"), "pacing: lowest rate")
	fs.StringVar(&f.max, "pace-max", fmt.Sprint(d.Pace.Max, "/s"), "pacing: highest rate")
	fs.StringVar(&f.ini, "pace-initial", fmt.Sprint(d.Pace.Initial, "/s"), "pacing: starting rate (doubles while the mempool stays under the target)")
	fs.Float64Var(&f.o.Pace.Increase, "pace-increase", d.Pace.Increase, "pacing: additive increase, tx/s per second")
	fs.BoolVar(&f.o.Pace.Window, "pace-window", d.Pace.Window, "pacing by the mempool alone: no rate control, forward whenever the node's mempool (as last polled) plus what was sent since is under --pace-target, as a flood keeps it full")
	fs.Float64Var(&f.o.Pace.Decrease, "pace-decrease", d.Pace.Decrease, "pacing: on a backoff the rate becomes this fraction of the averaged commit rate, 0 < x < 1")
	fs.DurationVar(&f.o.PollInterval, "poll-interval", d.PollInterval, "how often the node's mempool and height are read")
	fs.BoolVar(&f.o.NoQueue, "no-queue", false, "pacing and fairness off: forward each tx at once, as sent, behind the token bucket alone (the plain rate-limiting proxy)")
	fs.IntVar(&f.o.Workers, "workers", d.Workers, "concurrent forwards to the node")
	fs.Int64Var(&f.o.MaxBodyBytes, "max-body-bytes", d.MaxBodyBytes, "largest request body and websocket frame, as the node's rpc.max_body_bytes")
	fs.IntVar(&f.o.MaxBatch, "max-batch", d.MaxBatch, "most requests in a batch, as the node's rpc.max_request_batch_size")
	fs.StringVar(&f.o.Spool, "spool", "", "directory of an fsynced on-disk queue of accepted broadcast_tx_async txs, so a restart loses none (default: memory only)")
	fs.DurationVar(&f.o.DrainTimeout, "drain-timeout", d.DrainTimeout, "on stop, how long to go on forwarding queued txs (without --spool the rest are lost, logged and counted)")
	fs.StringVar(&f.o.Trace, "pace-trace", "", "write the pacing observations to this CSV file (at_ns,mempool,height,forwarded,full,rate)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "debug logs on stderr")
}

// options returns the flags as sentinel.Options.
func (f *sentinelFlags) options() (sentinel.Options, error) {
	o := f.o
	var err error
	rate := func(name, s string, dst *float64) {
		if err != nil {
			return
		}
		if strings.TrimSpace(s) == "0" {
			*dst = 0
			return
		}
		if *dst, err = manifest.ParseRate(s); err != nil {
			err = fmt.Errorf("--%s: %w", name, err)
		}
	}
	rate("rate", f.rate, &o.Limits.Rate)
	rate("read-rate", f.readRate, &o.Limits.ReadRate)
	rate("max-rate", f.maxRate, &o.MaxRate)
	rate("pace-min", f.min, &o.Pace.Min)
	rate("pace-max", f.max, &o.Pace.Max)
	rate("pace-initial", f.ini, &o.Pace.Initial)
	if err != nil {
		return o, err
	}
	o.Limits.Burst, o.Limits.ReadBurst, o.Limits.MaxConns = f.burst, f.readBurst, f.maxConns
	for _, p := range f.proxies {
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			return o, fmt.Errorf("--trusted-proxy %q: %w", p, err)
		}
		o.TrustedProxies = append(o.TrustedProxies, pre)
	}
	for _, s := range f.overrides {
		key, l, err := parseClientLimit(s, o.Limits)
		if err != nil {
			return o, err
		}
		if o.Overrides == nil {
			o.Overrides = map[string]sentinel.Limits{}
		}
		o.Overrides[key] = l
	}
	return o, o.Validate()
}

// parseClientLimit parses KEY=RATE[,burst=N][,weight=N][,conns=N]; what it
// does not name is taken from base.
func parseClientLimit(s string, base sentinel.Limits) (string, sentinel.Limits, error) {
	key, rest, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return "", base, fmt.Errorf("--client-limit %q: want KEY=RATE[,burst=N][,weight=N][,conns=N]", s)
	}
	parts := strings.Split(rest, ",")
	l := base
	if strings.TrimSpace(parts[0]) == "0" {
		l.Rate = 0
	} else if r, err := manifest.ParseRate(parts[0]); err != nil {
		return "", base, fmt.Errorf("--client-limit %q: %w", s, err)
	} else {
		l.Rate = r
	}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return "", base, fmt.Errorf("--client-limit %q: %s: want a whole number", s, p)
		}
		switch k {
		case "burst":
			l.Burst = n
		case "weight":
			l.Weight = n
		case "conns":
			l.MaxConns = n
		default:
			return "", base, fmt.Errorf("--client-limit %q: unknown setting %q (want burst, weight or conns)", s, k)
		}
	}
	return key, l, nil
}

func newSentinelCmd(st *state) *cobra.Command {
	var f sentinelFlags
	cmd := &cobra.Command{
		Use:   "sentinel",
		Short: "Run a fair, pacing transaction gateway in front of a node's RPC",
		Long: `Run the sentinel: a gateway in front of one CometBFT node's JSON-RPC that
limits each client (token bucket, connections), queues admitted broadcasts
fairly (one bounded queue per client, deficit round robin), feeds the node at
the pace its mempool and commit rate show it can take (AIMD towards a mempool
target; a tx the node has no room for is queued again) and refuses explicitly
what it does not admit.

Clients use it as they would the node: POST /, GET /<method>?args, and
ws://LISTEN/websocket. broadcast_tx_async is answered as soon as the tx is
queued (and on disk, with --spool); broadcast_tx_sync and _commit get the
node's own reply once forwarded. Read-only methods are proxied under
--read-rate; unsafe and unknown methods are refused (-32601, HTTP 403).

A refusal is HTTP 429 with Retry-After and a JSON-RPC error naming the limit:
-32001 client rate, -32002 client queue full, -32003 global buffer full,
-32004 too many connections. A tx the node rejects after an async
acknowledgement is logged with the node's reason.

The client key is the --client-header value (cometlab load --client-key sets
it), the --api-key-param value, or the client's IP. Ctrl-C stops it: it
forwards what is queued for up to --drain-timeout; without --spool what is left
then is lost (logged and counted in sentinel_lost_total).`,
		Example: `  cometlab sentinel --upstream http://127.0.0.1:26657 --listen 127.0.0.1:26667
  cometlab load --endpoint ws://127.0.0.1:26667/websocket --client-key alice -r 400 -T 30s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options()
			if err != nil {
				return exitcode.With(err, exitcode.Usage)
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
			s, err := sentinel.New(o, newLogger(st.stderr, f.verbose), reg)
			if err != nil {
				return err
			}
			fmt.Fprintf(st.stderr, "sentinel: %s → %s", s.Addr(), o.Upstream)
			if m := s.MetricsAddr(); m != "" {
				fmt.Fprintf(st.stderr, " (metrics http://%s/metrics)", m)
			}
			fmt.Fprintln(st.stderr)
			return s.Run(cmd.Context())
		},
	}
	f.register(cmd.Flags())
	return cmd
}
