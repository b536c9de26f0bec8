package collect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// prometheusForTest returns the Prometheus server binary for a test that
// runs a real testnet and Prometheus, skipping the test in -short mode and
// ending it when COMETLAB_PROMETHEUS is not set (testnettest.Prereq: a
// failure under CI=true), and takes the node-test lock.
func prometheusForTest(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a real testnet and Prometheus server")
	}
	bin := os.Getenv("COMETLAB_PROMETHEUS")
	if bin == "" {
		testnettest.Prereq(t, "COMETLAB_PROMETHEUS is not set: no Prometheus server to test against (.ci/run installs Debian's prometheus package and sets it)")
	}
	testnettest.LockForTest(t)
	return bin
}

// TestPrometheusMatchesScraper runs the real-Prometheus path end to end: a
// 3-validator testnet under ~12 s of load, scraped at 1 s by the embedded
// scraper and by a real Prometheus server (COMETLAB_PROMETHEUS, installed
// by .ci/run) configured with PrometheusConfig. metrics.csv built from
// Prometheus's query_range must match the embedded one: the same series
// per node, heights equal within one scrape step, counters monotone. Every
// Grafana panel's query must also evaluate on that server.
func TestPrometheusMatchesScraper(t *testing.T) {
	bin := prometheusForTest(t)
	ctx := context.Background()
	dir := t.TempDir()

	// The testnet.
	m := manifest.Default()
	vals, rate, dur := 3, 100.0, 12*time.Second
	if err := m.Apply(manifest.Overrides{Validators: &vals, Rate: &rate, Duration: &dur}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	tnDir := filepath.Join(dir, "testnet")
	up, err := experiment.Up(ctx, experiment.UpOptions{Manifest: r, Dir: tnDir, Env: experiment.Env{Fetcher: fetcher(t), Out: os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := experiment.Down(tnDir, 10*time.Second, os.Stderr); err != nil {
			t.Error(err)
		}
		if left := testnettest.ProcessesUnder(t, tnDir); len(left) > 0 {
			t.Errorf("node processes left behind: %v", left)
		}
	})
	var targets []collect.Target
	var nodes []collect.PromNode
	for _, n := range up.Nodes {
		targets = append(targets, collect.Target{Name: n.Name, URL: n.Metrics})
		nodes = append(nodes, collect.PromNode{Name: n.Name, Instance: collect.NodeInstance(n.Metrics)})
	}

	// Prometheus, on loopback, scraping the testnet with our config.
	cfg, err := collect.PrometheusConfig([]collect.PromJob{{Name: up.ChainID, Targets: targets}})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if promtool := filepath.Join(filepath.Dir(bin), "promtool"); fileExists(promtool) {
		if out, err := exec.Command(promtool, "check", "config", cfgPath).CombinedOutput(); err != nil {
			t.Fatalf("promtool check config: %v\n%s\n%s", err, out, cfg)
		}
	}
	promURL := startPrometheus(t, bin, cfgPath, filepath.Join(dir, "prometheus-data"))

	// The embedded scraper alongside, while load runs.
	w, err := results.Create(filepath.Join(dir, "embedded.csv"), results.MetricsHeader)
	if err != nil {
		t.Fatal(err)
	}
	sctx, sstop := context.WithCancel(ctx)
	scraper := collect.NewScraper(targets, collect.ScrapeConfig{}, w, nil)
	sdone := make(chan error, 1)
	start := time.Now()
	go func() { sdone <- scraper.Run(sctx) }()
	var out bytes.Buffer
	res, err := experiment.Load(ctx, experiment.LoadOptions{Endpoint: up.Nodes[0].RPC, Manifest: r,
		Dir: filepath.Join(dir, "run"), Readback: true, Env: experiment.Env{Out: &out, Version: "test"}})
	if err != nil {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	time.Sleep(2 * time.Second) // Prometheus's last scrapes of the window
	end := time.Now()
	sstop()
	if err := <-sdone; err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, s := range scraper.Stats() {
		if s.Failures > 0 || s.Successes < 10 {
			t.Errorf("embedded scraper: %+v", s)
		}
	}
	t.Logf("load run %s: %s", res.Run.Status, strings.TrimSpace(out.String()))

	// The same window from Prometheus.
	w2, err := results.Create(filepath.Join(dir, "prometheus.csv"), results.MetricsHeader)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := collect.NewPromAPI(promURL, nil).ReadRange(ctx, collect.RangeQuery{Nodes: nodes, Start: start, End: end, Step: time.Second}, w2)
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	for _, s := range stats {
		if s.MatchBy != "node" || s.Series == 0 {
			t.Errorf("prometheus: %+v", s)
		}
	}
	emb, prom := readSeries(t, filepath.Join(dir, "embedded.csv")), readSeries(t, filepath.Join(dir, "prometheus.csv"))
	edgeBorn := compareSeries(t, emb, prom)
	checkDashboard(t, promURL)
	compareReports(t, ctx, filepath.Join(dir, "run"), filepath.Join(dir, "embedded.csv"), promURL, up, edgeBorn)
}

// compareReports builds the load run's report twice, with metrics.csv from
// the embedded scraper and from Prometheus (experiment.ReadPrometheus, the
// path of `cometlab report --prometheus`): both must build and hold the
// same figures.
//
// A figure may be in one report only when a series was born at the
// window's end on one side only (edgeBorn > 0): then it is logged.
func compareReports(t *testing.T, ctx context.Context, runDir, embedded, promURL string, up experiment.UpState, edgeBorn int) {
	t.Helper()
	run, err := results.ReadRun(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range up.Nodes { // `load` does not know the nodes; a `run` records them
		run.Nodes = append(run.Nodes, n.Node)
	}
	if err := results.WriteJSON(filepath.Join(runDir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	promDir := runDir + "-prometheus"
	ents, err := os.ReadDir(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			copyFile(t, filepath.Join(runDir, e.Name()), filepath.Join(promDir, e.Name()))
		}
	}
	copyFile(t, embedded, filepath.Join(runDir, results.MetricsFile))
	stats, err := experiment.ReadPrometheus(ctx, promDir, experiment.PrometheusOptions{URL: promURL})
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != len(up.Nodes) {
		t.Errorf("ReadPrometheus: %+v", stats)
	}
	var sums [2]analysis.Summary
	for i, d := range []string{runDir, promDir} {
		if sums[i], err = analysis.Analyze(d); err != nil {
			t.Fatal(err)
		}
		if err := report.Write(d, sums[i], report.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	report := t.Errorf
	if edgeBorn > 0 {
		report = t.Logf
	}
	for i, side := range []string{"the embedded scraper", "Prometheus"} {
		for k, v := range sums[i].Metrics {
			if _, ok := sums[1-i].Metrics[k]; ok {
				continue
			}
			// A message type a node sent a handful of times, the first of
			// them in the window's last scrape interval (a late VoteSetBits):
			// one side saw its counter rise inside the window, the other
			// only at its edge. Below a byte per transaction it is that.
			if analysis.IsMessageTypeMetric(k) && v < 1 {
				t.Logf("figure %s (%.3g B per tx) only in the report from %s: a rare message type at the window's edge", k, v, side)
				continue
			}
			report("figure %s only in the report from %s", k, side)
		}
	}
	if a, b := sums[0].Metrics["peers_min"], sums[1].Metrics["peers_min"]; a != b {
		t.Errorf("peers_min: embedded %v, prometheus %v", a, b)
	}
	t.Logf("anomalies: embedded %q; prometheus %q", sums[0].Anomalies, sums[1].Anomalies)
}

type point struct {
	t int64
	v float64
}

// readSeries reads a metrics.csv into node → "name{labels}" → points.
func readSeries(t *testing.T, path string) map[string]map[string][]point {
	t.Helper()
	out := map[string]map[string][]point{}
	err := results.Scan(path, results.MetricsHeader, func(f []string) error {
		var v float64
		var ts int64
		fmt.Sscan(f[0], &ts)
		fmt.Sscan(f[4], &v)
		if out[f[1]] == nil {
			out[f[1]] = map[string][]point{}
		}
		k := f[2] + "{" + f[3] + "}"
		out[f[1]][k] = append(out[f[1]][k], point{ts, v})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compareSeries returns how many series were born at the window's end on
// one side only.
func compareSeries(t *testing.T, emb, prom map[string]map[string][]point) (edgeBorn int) {
	t.Helper()
	if len(emb) == 0 || len(emb) != len(prom) {
		t.Fatalf("nodes: embedded %d, prometheus %d", len(emb), len(prom))
	}
	for node, es := range emb {
		ps := prom[node]
		// A series born in the last seconds of the window (a first late
		// vote, a new message type) can be in one scrape and not yet in
		// the other's: it may be missing on one side, nothing else may.
		for _, side := range []struct {
			name      string
			have, not map[string][]point
		}{{"embedded", es, ps}, {"prometheus", ps, es}} {
			for k, pts := range side.have {
				if _, ok := side.not[k]; ok {
					continue
				}
				if pts[0].t >= lastT(side.not)-edgeNanos {
					t.Logf("%s: %s only in %s, born at the window's end", node, k, side.name)
					edgeBorn++
					continue
				}
				t.Errorf("%s: series %s only in %s, from %d (the other's last point %d)", node, k, side.name, pts[0].t, lastT(side.not))
			}
		}
		for k, pts := range es {
			if monotone(k) {
				for _, src := range [][]point{pts, ps[k]} {
					for i := 1; i < len(src); i++ {
						if src[i].v < src[i-1].v {
							t.Errorf("%s %s: counter went down at %d: %v → %v", node, k, src[i].t, src[i-1].v, src[i].v)
						}
					}
				}
			}
		}
		h := "cometbft_consensus_height{chain_id="
		for k, pts := range es {
			if !strings.HasPrefix(k, h) {
				continue
			}
			exact, n := 0, 0
			for _, p := range ps[k] {
				// Prometheus's point at t is its last scrape at or before t;
				// ours are a scrape step apart, at another phase.
				best := math.Inf(1)
				for _, e := range pts {
					if e.t >= p.t-2e9 && e.t <= p.t+1e9 {
						best = min(best, math.Abs(e.v-p.v))
					}
				}
				if math.IsInf(best, 1) {
					continue // outside the embedded window
				}
				n++
				if best == 0 {
					exact++
				}
				if best > 1 {
					t.Errorf("%s height at %d: prometheus %v, embedded off by %v", node, p.t, p.v, best)
				}
			}
			t.Logf("%s: %d series; heights equal at %d of %d Prometheus points, the rest within one", node, len(es), exact, n)
			if n < 8 || float64(exact) < 0.9*float64(n) {
				t.Errorf("%s: heights equal within a step at %d of %d points", node, exact, n)
			}
		}
	}
	return edgeBorn
}

// edgeNanos is how close to the other source's last point a series may be
// born and still be missing there: two scrape steps.
const edgeNanos = 2e9

// lastT is the time of the latest point of any series.
func lastT(series map[string][]point) int64 {
	var last int64
	for _, pts := range series {
		for _, p := range pts {
			last = max(last, p.t)
		}
	}
	return last
}

// monotone reports whether a stored series only grows.
func monotone(key string) bool {
	name, _, _ := strings.Cut(key, "{")
	return strings.HasSuffix(name, "_total") || strings.HasSuffix(name, "_count") || strings.HasSuffix(name, "_total_txs")
}

// checkDashboard evaluates every Grafana panel's query on the server.
func checkDashboard(t *testing.T, promURL string) {
	b, err := collect.GrafanaDashboard(collect.DashboardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			expr := strings.ReplaceAll(q.Expr, "$node", ".*")
			resp, err := http.PostForm(promURL+"/api/v1/query", url.Values{"query": {expr}})
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Status string
				Error  string
				Data   struct{ Result []json.RawMessage }
			}
			json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if r.Status != "success" || len(r.Data.Result) == 0 {
				t.Errorf("panel %q: %s → %s %s, %d series", p.Title, expr, r.Status, r.Error, len(r.Data.Result))
			}
		}
	}
}

// startPrometheus starts a Prometheus server on a free loopback port and
// returns its URL; it is stopped (and reaped) when the test ends.
func startPrometheus(t *testing.T, bin, cfg, data string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.Create(filepath.Join(filepath.Dir(cfg), "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+data, "--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = testnettest.ChildAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if syscall.Kill(cmd.Process.Pid, 0) == nil {
			t.Errorf("prometheus (pid %d) still running", cmd.Process.Pid)
		}
	})
	u := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(u + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return u
			}
		}
		select {
		case <-done:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("prometheus exited:\n%s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready at %s after 30 s", u)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func fetcher(t *testing.T) *cometbft.Fetcher {
	t.Helper()
	cache, err := cometbft.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return &cometbft.Fetcher{CacheDir: cache, Progress: os.Stderr}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// copyFile copies the file src to dst, creating dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	resultstest.WriteFile(t, dst, b)
}
