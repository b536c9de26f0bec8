package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestPrometheusConfigCmd writes prometheus.yml from a pinned manifest
// (golden: testdata/prometheus/pinned.prometheus.yml, -update rewrites it)
// and from a testnet.json, and refuses what it cannot scrape.
func TestPrometheusConfigCmd(t *testing.T) {
	dir := t.TempDir()
	tn := filepath.Join(dir, "tn")
	if err := os.MkdirAll(tn, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSON(filepath.Join(tn, experiment.TestnetFile), experiment.UpState{ChainID: "cometlab-1234", Nodes: []experiment.UpNode{
		{Node: results.Node{Name: "validator01", Metrics: "http://127.0.0.1:40001/metrics"}, PID: 1},
		{Node: results.Node{Name: "validator02", Metrics: "http://127.0.0.1:40002/metrics"}, PID: 2},
	}}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("..", "..", "testdata", "prometheus", "pinned.prometheus.yml")
	pinned := filepath.Join("..", "..", "testdata", "prometheus", "pinned.toml")
	tests := []struct {
		name string
		args []string
		code int
		want []string // in stdout (or stderr when code != 0)
	}{
		{"manifest", []string{"--manifest", pinned}, exitcode.OK, nil},
		{"testnet", []string{"--testnet", tn}, exitcode.OK, []string{`job_name: "cometlab-1234"`, `targets: ["127.0.0.1:40002"]`, `node: "validator02"`}},
		{"both, 2 s", []string{"--testnet", tn, "--manifest", pinned, "--scrape-interval", "2s"}, exitcode.OK, []string{`"cometlab-1234"`, `"cometlab-pinned"`, "scrape_interval: 2s"}},
		{"unpinned", []string{"--manifest", filepath.Join("..", "..", "testdata", "prometheus", "unpinned.toml")}, exitcode.Usage, []string{"[validator02] do not pin"}},
		{"nothing", nil, exitcode.Usage, []string{"--testnet DIR or --manifest FILE"}},
		{"no testnet", []string{"--testnet", filepath.Join(dir, "none")}, exitcode.Failed, []string{"no running testnet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"prometheus-config"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			if code != exitcode.OK {
				out = errOut
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tt.name == "manifest" {
				resultstest.Golden(t, golden, []byte(out))
			}
		})
	}
	path := filepath.Join(dir, "prometheus.yml")
	if code, _, e := run(t, "prometheus-config", "--testnet", tn, "-o", path); code != exitcode.OK {
		t.Fatal(e)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "validator01") {
		t.Errorf("-o file: %v %s", err, b)
	}
}

func TestGrafanaDashboardCmd(t *testing.T) {
	code, out, e := run(t, "grafana-dashboard", "--namespace", "chain", "--title", "T")
	if code != exitcode.OK {
		t.Fatal(e)
	}
	var d struct {
		Title  string
		Panels []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Title != "T" || len(d.Panels) == 0 || !strings.Contains(out, "chain_mempool_size") {
		t.Errorf("dashboard: %v %+v", err, d)
	}
}

// TestMetricsFlagErrors: bad metrics flags are usage errors, caught before
// anything starts.
func TestMetricsFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--metrics", "some"}, `--metrics "some"`},
		{[]string{"run", "--scrape-interval", "0s"}, "--scrape-interval 0s"},
		{[]string{"run", "--metrics", "none", "--prometheus", "http://127.0.0.1:9090"}, "contradict"},
		{[]string{"report", "--metrics", "none", t.TempDir()}, `--metrics "none"`},
	} {
		code, _, e := run(t, c.args...)
		if code != exitcode.Usage || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", c.args, code, e, exitcode.Usage, c.want)
		}
	}
}
