package collect_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// shortRun is a 3-validator manifest with 10 s of load at 100 tx/s; pin,
// when set, pins each node's metrics address.
func shortRun(t *testing.T, pin []string) manifest.Resolved {
	t.Helper()
	m := manifest.Default()
	rate, dur := 100.0, 10*time.Second
	if pin == nil {
		vals := 3
		if err := m.Apply(manifest.Overrides{Validators: &vals, Rate: &rate, Duration: &dur}); err != nil {
			t.Fatal(err)
		}
	} else {
		var toml bytes.Buffer
		for i, addr := range pin {
			fmt.Fprintf(&toml, "[node.validator%02d]\nconfig = { \"instrumentation.prometheus_listen_addr\" = %q }\n", i+1, addr)
		}
		path := filepath.Join(t.TempDir(), "pinned.toml")
		resultstest.WriteFile(t, path, toml.Bytes())
		var err error
		if m, err = manifest.Load(path); err != nil {
			t.Fatal(err)
		}
		if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &dur}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkCollected checks that metrics.csv and resources.csv of a run hold
// rows of every node, and that no node process is left.
func checkCollected(t *testing.T, res experiment.Result, err error, out string) {
	t.Helper()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if res.Run.Status != results.StatusComplete {
		t.Errorf("status %s: %v", res.Run.Status, res.Run.Errors)
	}
	if left := testnettest.ProcessesUnder(t, res.Dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
	metrics, resources := map[string]int{}, map[string]int{}
	if err := results.ScanMetrics(res.Dir, func(m *results.Metric) error { metrics[m.Node]++; return nil }); err != nil {
		t.Fatal(err)
	}
	rs, err := results.ReadResources(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		resources[r.Node]++
		// cometlab's own row has no data directory.
		if r.RSS <= 0 || r.DataBytes <= 0 && r.Node != results.HarnessProcess || r.OpenFiles <= 0 || r.CPU < 0 {
			t.Errorf("resource row %+v", r)
		}
	}
	for _, n := range res.Run.Nodes {
		if metrics[n.Name] < 10*50 || resources[n.Name] < 10 {
			t.Errorf("%s: %d metric rows, %d resource rows", n.Name, metrics[n.Name], resources[n.Name])
		}
	}
	t.Logf("rows per node: metrics %v, resources %v", metrics, resources)
}

// TestRunCollects: `cometlab run` scrapes every node and samples every node
// process during the load, drain and read-back.
func TestRunCollects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	testnettest.LockForTest(t)
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: shortRun(t, nil), Dir: filepath.Join(t.TempDir(), "run"), Env: experiment.Env{Fetcher: fetcher(t), Out: &out, Version: "test"}})
	checkCollected(t, res, err, out.String())
}

// TestRunWithPrometheus: `cometlab run --prometheus` against a Prometheus
// server configured before the run from a manifest that pins the nodes'
// metrics addresses: metrics.csv comes from the server.
func TestRunWithPrometheus(t *testing.T) {
	bin := prometheusForTest(t)
	dir := t.TempDir()
	var pins []string
	var targets []collect.Target
	for i := range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		pins = append(pins, l.Addr().String())
		l.Close()
		u, err := collect.ListenAddrURL(pins[i])
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, collect.Target{Name: fmt.Sprintf("validator%02d", i+1), URL: u})
	}
	cfg, err := collect.PrometheusConfig([]collect.PromJob{{Name: "cometlab-pinned", Targets: targets}})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	resultstest.WriteFile(t, cfgPath, cfg)
	promURL := startPrometheus(t, bin, cfgPath, filepath.Join(dir, "data"))
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: shortRun(t, pins), Dir: filepath.Join(dir, "run"), Env: experiment.Env{Fetcher: fetcher(t), Out: &out, Version: "test"}, Collect: experiment.Collect{Prometheus: promURL}})
	checkCollected(t, res, err, out.String())
	if !bytes.Contains(out.Bytes(), []byte("metrics: read from prometheus")) {
		t.Errorf("the run did not say it read prometheus:\n%s", out.String())
	}
}
