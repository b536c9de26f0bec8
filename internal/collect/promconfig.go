package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// PromJob is one scrape job of a prometheus.yml: the nodes of one testnet.
type PromJob struct {
	Name     string        // job_name, e.g. "cometlab-<chain-id>"
	Interval time.Duration // scrape_interval; 0 means 1 s
	Targets  []Target      // node name and metrics URL
}

// PrometheusConfig returns a prometheus.yml scraping every job's nodes,
// each target labelled node="<node name>" (the label `--prometheus` reads
// series back by). The scrape timeout is the interval. Paths other than
// /metrics are set per target through __metrics_path__.
func PrometheusConfig(jobs []PromJob) ([]byte, error) {
	if len(jobs) == 0 {
		return nil, errors.New("no testnet to scrape")
	}
	var b bytes.Buffer
	b.WriteString(`# prometheus.yml written by cometlab prometheus-config: scrapes every node of
# the testnets below; each target carries a node label with the node's name.
# Keep Prometheus on loopback like the nodes, e.g.
#   prometheus --config.file=prometheus.yml --web.listen-address=127.0.0.1:9090 \
#     --storage.tsdb.path=./prometheus-data
# and read a run's series back with: cometlab report --prometheus http://127.0.0.1:9090 RUN_DIR
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
`)
	seen := map[string]bool{}
	for _, j := range jobs {
		if j.Name == "" || seen[j.Name] {
			return nil, fmt.Errorf("job name %q empty or repeated", j.Name)
		}
		seen[j.Name] = true
		if len(j.Targets) == 0 {
			return nil, fmt.Errorf("job %s: no nodes with a metrics endpoint", j.Name)
		}
		iv := j.Interval
		if iv <= 0 {
			iv = time.Second
		}
		fmt.Fprintf(&b, "  - job_name: %s\n    scrape_interval: %s\n    scrape_timeout: %s\n    static_configs:\n",
			yamlString(j.Name), promDuration(iv), promDuration(min(iv, 10*time.Second)))
		for _, t := range j.Targets {
			u, err := url.Parse(t.URL)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				return nil, fmt.Errorf("node %s: metrics URL %q is not http://host:port/path", t.Name, t.URL)
			}
			fmt.Fprintf(&b, "      - targets: [%s]\n        labels:\n          node: %s\n", yamlString(u.Host), yamlString(t.Name))
			if u.Path != "" && u.Path != "/metrics" {
				fmt.Fprintf(&b, "          __metrics_path__: %s\n", yamlString(u.Path))
			}
			if u.Scheme == "https" {
				fmt.Fprintf(&b, "          __scheme__: https\n")
			}
		}
	}
	return b.Bytes(), nil
}

// yamlString quotes s as a YAML double-quoted scalar (JSON's escapes are
// YAML's).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// promDuration formats d as Prometheus durations are written ("1s",
// "500ms", "1m30s").
func promDuration(d time.Duration) string {
	if d%time.Second != 0 {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	s := int64(d / time.Second)
	var out string
	if h := s / 3600; h > 0 {
		out += fmt.Sprintf("%dh", h)
	}
	if m := s % 3600 / 60; m > 0 {
		out += fmt.Sprintf("%dm", m)
	}
	if r := s % 60; r > 0 || out == "" {
		out += fmt.Sprintf("%ds", r)
	}
	return out
}

// ListenAddrURL turns a CometBFT instrumentation.prometheus_listen_addr
// (":26660", "127.0.0.1:26660", "tcp://0.0.0.0:26660") into the URL a
// local Prometheus scrapes; an unspecified or wildcard host means
// 127.0.0.1.
func ListenAddrURL(addr string) (string, error) {
	addr = strings.TrimPrefix(addr, "tcp://")
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("prometheus_listen_addr %q: want host:port", addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/metrics", nil
}
