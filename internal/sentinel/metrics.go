package sentinel

import "github.com/prometheus/client_golang/prometheus"

// Refusal reasons, the values of sentinel_refused_total's reason label.
const (
	ReasonClientRate   = "client_rate"
	ReasonClientQueue  = "client_queue_full"
	ReasonGlobalBuffer = "global_buffer_full"
	ReasonConnections  = "connections"
	ReasonReadRate     = "read_rate"
	ReasonMethod       = "method"
	ReasonBadRequest   = "bad_request"
	ReasonShutdown     = "shutdown"
)

// metrics are the sentinel's Prometheus series.
type metrics struct {
	admitted  *prometheus.CounterVec // by method
	refused   *prometheus.CounterVec // by reason
	queued    *prometheus.GaugeVec   // by client
	forwarded prometheus.Counter     // txs the node answered (any reply but mempool full)
	nodeErr   *prometheus.CounterVec // by kind: rejected, mempool_full, unreachable
	lost      prometheus.Counter     // accepted, never forwarded (a stop without spool)
	reads     prometheus.Counter     // read-only calls proxied
	rate      prometheus.Gauge       // pacing rate, tx/s
	mempool   prometheus.Gauge       // the node's mempool, as last polled
	wait      prometheus.Histogram   // queue wait, seconds
	conns     *prometheus.GaugeVec   // open websocket connections, by client
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		admitted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sentinel_admitted_total",
			Help: "Broadcasts admitted (queued, or forwarded at once without a queue), by method."}, []string{"method"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sentinel_refused_total",
			Help: "Requests refused explicitly, by reason."}, []string{"reason"}),
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sentinel_queued",
			Help: "Transactions waiting in the fair queue, by client."}, []string{"client"}),
		forwarded: prometheus.NewCounter(prometheus.CounterOpts{Name: "sentinel_forwarded_total",
			Help: "Transactions forwarded to the node and answered by it (a mempool-full answer aside: those are queued again)."}),
		nodeErr: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sentinel_node_errors_total",
			Help: "Forwarded transactions the node rejected (kind=rejected), had no room for and were queued again (kind=mempool_full), or that could not reach it (kind=unreachable)."}, []string{"kind"}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "sentinel_lost_total",
			Help: "Accepted transactions dropped unforwarded when the sentinel stopped without a spool."}),
		reads: prometheus.NewCounter(prometheus.CounterOpts{Name: "sentinel_reads_total",
			Help: "Read-only calls proxied to the node."}),
		rate: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sentinel_pacing_rate",
			Help: "The rate (tx/s) at which the sentinel forwards to the node."}),
		mempool: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sentinel_node_mempool_txs",
			Help: "The node's mempool size as last polled."}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sentinel_queue_wait_seconds",
			Help:    "Time from admission to forwarding.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18)}),
		conns: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sentinel_connections",
			Help: "Open websocket connections, by client."}, []string{"client"}),
	}
	if reg != nil {
		reg.MustRegister(m.admitted, m.refused, m.queued, m.forwarded, m.nodeErr, m.lost, m.reads,
			m.rate, m.mempool, m.wait, m.conns)
	}
	return m
}
