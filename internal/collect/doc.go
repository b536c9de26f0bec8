// Package collect gathers what a live or finished testnet shows: the chain
// walk (blocks → one record per committed transaction of the run), the
// local time every node commits every height (block adoption), every
// node's Prometheus series (Scraper, with Exposition as its pure core),
// every local node process's resources from /proc (Resources), and the
// same series read back from a Prometheus server (PromAPI), with the
// configuration such a server and a Grafana dashboard need
// (PrometheusConfig, GrafanaDashboard).
package collect
