// Package collect gathers what a live or finished testnet shows: the chain
// walk (blocks → one record per committed transaction of the run), the
// local time every node commits every height (block adoption, Heights),
// every node's Prometheus series (Scraper, with Exposition as its pure
// core), every local node process's resources from /proc (Resources; Linux
// only: elsewhere every sample fails and resources.csv gets no rows), and
// the same series read back from a Prometheus server (PromAPI), with the
// configuration such a server and a Grafana dashboard need
// (PrometheusConfig, GrafanaDashboard).
package collect
