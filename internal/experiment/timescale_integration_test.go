package experiment_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// timeScaleTolerance is how far the figures of a run at k = 4 may be from
// the same model's run in real time in TestTimeScaleReal: loose, because
// one run a side on a machine shared with other work is all a short test
// affords; bench/timescale.sh measures the method's own agreement with
// repeats on a quiet host.
const timeScaleTolerance = 0.25

// TestTimeScaleReal runs the default testnet at 200 tx/s for 10 s of model
// time twice: in real time, and at time scale 4 (50 tx/s for 40 s on the
// host, every timeout ×4). The scaled run writes its nodes' files scaled,
// records the model (manifest.toml, run.json's load) and k, sends its load
// over 4 times the time, reports in model time and says so at the top of
// its report; its block interval and committed rate agree with the real
// run's within timeScaleTolerance (about 10 blocks a run; a scaled run
// whose timeouts were not scaled would be 4 times off). And cometlab's
// own CPU falls with k (checkHarnessScales). About 1.5 minutes of nodes.
func TestTimeScaleReal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet twice, once at time scale 4")
	}
	model := func(k string) manifest.Resolved {
		m := manifest.Default()
		rate, d := 200.0, 10*time.Second
		if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d, TimeScale: &k}); err != nil {
			t.Fatal(err)
		}
		r, err := m.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	f := experimenttest.Fetcher(t) // the node lock, once for both runs
	runOne := func(m manifest.Resolved, name string) (experiment.Result, string) {
		dir := filepath.Join(t.TempDir(), name)
		var out bytes.Buffer
		res, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir,
			Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"}})
		t.Log(out.String())
		if err != nil {
			t.Fatal(err)
		}
		return res, dir
	}
	real, realDir := runOne(model("1"), "real")
	scaled, dir := runOne(model("4"), "scaled")
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
	checkAccounted(t, real, 2000)
	checkAccounted(t, scaled, 2000)
	checkHarnessScales(t, real, realDir, scaled, dir)

	// The record: the model and k; the host sent for 40 s.
	run := scaled.Run
	if run.TimeScale != 4 || run.Load.Rate != 200 || run.Load.DurationS != 10 || scaled.Summary.TimeScale != 4 {
		t.Errorf("run.json time scale %v, load %v tx/s for %v s; summary time scale %v", run.TimeScale, run.Load.Rate, run.Load.DurationS, scaled.Summary.TimeScale)
	}
	if sent := run.LoadEnd.Sub(run.LoadStart); sent < 38*time.Second || sent > 45*time.Second {
		t.Errorf("the load took %v on the host, want 40 s", sent)
	}
	if real.Run.TimeScale != 0 || real.Summary.TimeScale != 0 {
		t.Errorf("the run in real time records a time scale: %v, %v", real.Run.TimeScale, real.Summary.TimeScale)
	}
	mf, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil || !strings.Contains(string(mf), "time_scale = 4.0") || !strings.Contains(string(mf), "rate = 200.0") {
		t.Errorf("manifest.toml (%v) does not record the model and k:\n%s", err, mf)
	}
	// The nodes' files, scaled.
	cfg := map[string]any{}
	b, err := os.ReadFile(cometbft.ConfigFile(filepath.Join(dir, results.NodesDir, "validator01")))
	if err == nil {
		err = toml.Unmarshal(b, &cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	cons, _ := cfg["consensus"].(map[string]any)
	p2p, _ := cfg["p2p"].(map[string]any)
	if cons["timeout_commit"] != "4s" || cons["timeout_propose"] != "12s" || p2p["flush_throttle_timeout"] != "40ms" || p2p["send_rate"] != int64(1280000) {
		t.Errorf("config.toml at k = 4: timeout_commit %v, timeout_propose %v, flush_throttle_timeout %v, send_rate %v",
			cons["timeout_commit"], cons["timeout_propose"], p2p["flush_throttle_timeout"], p2p["send_rate"])
	}
	gen, err := os.ReadFile(cometbft.GenesisFile(filepath.Join(dir, results.NodesDir, "validator01")))
	if err != nil || !strings.Contains(string(gen), `"max_age_duration": "691200000000000"`) {
		t.Errorf("genesis at k = 4 (%v): evidence max_age_duration not 4 × 48 h", err)
	}
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !strings.Contains(string(report), "Scaled in time by k = 4: every time constant ×4, every rate ÷4; figures are in model time.") {
		t.Errorf("report.md (%v) does not say the run was scaled", err)
	}
	if b, _ := os.ReadFile(filepath.Join(realDir, results.ReportFile)); strings.Contains(string(b), "Scaled in time") {
		t.Error("the report of the run in real time says it was scaled")
	}

	// The figures, in model time, against real time.
	for _, id := range []string{"block_interval_mean_s", "committed_tps", "block_latency_p50_ms", "block_latency_p99_ms", "blocks_per_s_mean",
		"cpu_mean_pct", "harness_cpu_mean_pct"} {
		a, b := real.Summary.Metrics[id], scaled.Summary.Metrics[id]
		t.Logf("%-24s real %10.3f   k = 4 %10.3f   ratio %.3f", id, a, b, b/a)
	}
	for _, id := range []string{"block_interval_mean_s", "committed_tps"} {
		a, okA := real.Summary.Metrics[id]
		b, okB := scaled.Summary.Metrics[id]
		if !okA || !okB || math.Abs(b/a-1) > timeScaleTolerance {
			t.Errorf("%s: %v at k = 4 (model time), %v in real time: beyond %.0f %%", id, b, a, 100*timeScaleTolerance)
		}
	}
}

// checkHarnessScales compares cometlab's own CPU beside the nodes'
// (host.csv over the load) in the two runs of TestTimeScaleReal. Its
// sampling, polling and flushing are k times rarer per host second at k,
// as the nodes' work is, so its CPU must fall with k: at k = 4 below 3/4
// of its CPU in real time. It does not fall 4 times: what Go's runtime
// does per second of the host (the sysmon thread's sleeps, idle threads
// parked in epoll, about half of cometlab's CPU at k = 4 under perf) does
// not scale, so its share of the nodes' CPU grows with k
// (docs/measurements.md).
func checkHarnessScales(t *testing.T, real experiment.Result, realDir string, scaled experiment.Result, scaledDir string) {
	t.Helper()
	measure := func(res experiment.Result, dir, k string) cpuUse {
		host, err := results.ReadHost(dir)
		if err != nil {
			t.Fatal(err)
		}
		// The rows inside the load, less the first and the last: a row
		// covers the sampling interval before it (k seconds at k), and
		// the first would hold the start of the load, the last its end.
		var in []results.HostSample
		for _, h := range host {
			if h.Time >= res.Run.LoadStart.UnixNano() && h.Time <= res.Run.LoadEnd.UnixNano() {
				in = append(in, h)
			}
		}
		if len(in) < 4 {
			t.Fatalf("k = %s: %d rows of host.csv during the load", k, len(in))
		}
		var nodes, harness, n float64
		for _, h := range in[1 : len(in)-1] {
			nodes, harness, n = nodes+h.Testnet, harness+h.Harness, n+1
		}
		if nodes <= 0 {
			t.Fatalf("k = %s: no CPU of the nodes in host.csv during the load", k)
		}
		t.Logf("k = %s: nodes %.3f cores, cometlab %.3f cores (mean over the load, %.0f rows): cometlab %.1f %% of the nodes' CPU; harness_cpu_mean_pct %.1f",
			k, nodes/n, harness/n, n, 100*harness/nodes, res.Summary.Metrics["harness_cpu_mean_pct"])
		return cpuUse{nodes: nodes / n, harness: harness / n}
	}
	r, s := measure(real, realDir, "1"), measure(scaled, scaledDir, "4")
	if s.harness > 0.75*r.harness {
		t.Errorf("cometlab's CPU did not fall with k: %.3f cores at k = 4, %.3f in real time", s.harness, r.harness)
	}
	t.Logf("cometlab's share of the nodes' CPU: %.1f %% in real time, %.1f %% at k = 4", 100*r.share(), 100*s.share())
}

// cpuUse is the mean CPU (cores) of the nodes and of cometlab over a load.
type cpuUse struct{ nodes, harness float64 }

func (u cpuUse) share() float64 { return u.harness / u.nodes }

// TestTimeScaleAutoProbe runs the default testnet with time_scale =
// "auto" at a light model load (50 tx/s for 5 s): the probe measures the
// testnet on this host, the run records the chosen k with the probe's
// figures (run.json, summary.json), k is what chooseTimeScale makes of
// those figures, manifest.toml records k, and the report's first line
// says how k was chosen. About 40 s of nodes.
func TestTimeScaleAutoProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet: a probe, then the run")
	}
	m := manifest.Default()
	rate, d, k := 50.0, 5*time.Second, manifest.TimeScaleAuto
	if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d, TimeScale: &k}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "auto")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: r, Dir: dir,
		Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 { // the probes' too: DIR.probe-k1
		t.Errorf("processes left behind: %v", left)
	}
	if _, err := os.Stat(dir + ".probe-k1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the probe's directory was left behind (%v)", err)
	}
	checkAccounted(t, res, 250)
	auto := res.Run.TimeScaleAuto
	if auto == nil || len(auto.Probes) == 0 {
		t.Fatalf("run.json records no time_scale_auto: %+v", auto)
	}
	p := auto.Probes[0]
	t.Logf("probe: %+v; chose k = %v: %s", p, auto.Chosen, auto.Reason)
	if p.K != 1 || p.Cores < 1 || p.Testnet <= 0 || p.Harness <= 0 || p.Samples < 5 || p.Seconds < 7 || p.Rate != 50 {
		t.Errorf("the first probe's figures are not a measure of the testnet in real time: %+v", p)
	}
	again, reprobe := experiment.ChooseTimeScale(auto.Probes, auto.MaxScale)
	if reprobe != 0 || again.Chosen != auto.Chosen || again.Reason != auto.Reason {
		t.Errorf("the probes recorded give k = %v (reprobe %v), the run chose %v", again.Chosen, reprobe, auto.Chosen)
	}
	if want := auto.Chosen; (want == 1 && res.Run.TimeScale != 0) || (want != 1 && res.Run.TimeScale != want) {
		t.Errorf("run.json time_scale %v, chosen %v", res.Run.TimeScale, want)
	}
	if s := res.Summary.TimeScaleAuto; s == nil || s.Chosen != auto.Chosen {
		t.Errorf("summary.json time_scale_auto %+v", s)
	}
	mf, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil || strings.Contains(string(mf), "auto") {
		t.Errorf("manifest.toml (%v) does not record the chosen k:\n%s", err, mf)
	}
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil || !strings.Contains(string(report), `time_scale = "auto" chose k = `) {
		t.Errorf("report.md (%v) does not say how k was chosen", err)
	}
}
