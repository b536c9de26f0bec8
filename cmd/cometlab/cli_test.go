package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = execute(context.Background(), &state{stdout: &o, stderr: &e, args: args, hard: context.Background()})
	return code, o.String(), e.String()
}

// proves marks t as a test that proves rather than measures (what it
// checks holds whatever else the machine runs: every transaction
// accounted, a file written, a verdict named by what the test did; never a
// timing: experimenttest.Proves): it runs in parallel with the package's
// other such tests, after its others, and takes the shared node lock, so
// that its testnet may run beside one other such test's. Call it first (a
// parallel test may not use t.Setenv); a series in it is run with runKept.
func proves(t *testing.T) {
	t.Helper()
	t.Parallel()
	testnettest.LockSharedForTest(t)
}

// runKept is run with the disturbance policy's re-measurements off: each
// run of a series that the host disturbed is kept (and recorded so), not
// measured again. For the tests of real series that check nothing of the
// policy: in CI other packages' tests share the host, and a disturbed
// round measured again was two more testnets.
func runKept(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = execute(context.Background(), &state{stdout: &o, stderr: &e, args: args, hard: context.Background(), maxRemeasures: -1})
	return code, o.String(), e.String()
}

// TestHelpGolden keeps every command's --help under review: a changed flag
// shows up as a diff of testdata/help/*.txt (regenerate with -update).
func TestHelpGolden(t *testing.T) {
	for _, args := range [][]string{{}, {"run"}, {"load"}, {"analyze"}, {"report"}, {"readback"}, {"testnet"}, {"testnet", "up"}, {"testnet", "down"}, {"prometheus-config"}, {"grafana-dashboard"}, {"compare"}, {"ab"}, {"sweep"}, {"saturate"}, {"versions"}, {"sentinel"}, {"deploy"}, {"manifest"}, {"manifest", "check"}, {"history"}, {"history", "rebuild"}, {"history", "add"}, {"history", "trend"}, {"gate"}, {"qa"}, {"serve"}} {
		name := strings.Join(append([]string{"cometlab"}, args...), "_")
		t.Run(name, func(t *testing.T) {
			code, out, _ := run(t, append(args, "--help")...)
			if code != exitcode.OK {
				t.Fatalf("exit %d", code)
			}
			resultstest.Golden(t, filepath.Join("testdata", "help", name+".txt"), []byte(out))
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	resultstest.WriteFile(t, bad, []byte("[load]\nrtae = 5\nrate = 0\n"))
	badTxs, fewTxs := filepath.Join(dir, "bad.txs"), filepath.Join(dir, "few.txs")
	resultstest.WriteFile(t, badTxs, []byte("YT0x\na=1\n"))
	resultstest.WriteFile(t, fewTxs, []byte("YT0x\nYj0y\n"))
	nop, appKV := filepath.Join(dir, "nop.toml"), filepath.Join(dir, "app-kvstore.toml")
	resultstest.WriteFile(t, nop, []byte("mempool = \"nop\"\n"))
	resultstest.WriteFile(t, appKV, []byte("mempool = \"app\"\n"))
	ramp := filepath.Join(dir, "ramp.toml")
	resultstest.WriteFile(t, ramp, []byte("[load]\nshape = \"ramp\"\nrate_to = 800\n"))
	hosts, goodHosts := filepath.Join(dir, "hosts.toml"), filepath.Join(dir, "good-hosts.toml")
	resultstest.WriteFile(t, hosts, []byte("[host.h1]\naddress = \"10.0.0.1\"\nssh_user = \"qa\"\n[node.a]\nhost = \"h2\"\n"))
	resultstest.WriteFile(t, goodHosts, []byte("[host.h1]\naddress = \"10.0.0.1\"\nssh_user = \"qa\"\n[node.a]\nhost = \"h1\"\n"))
	badPort, ungrouped := filepath.Join(dir, "inv.yml"), filepath.Join(dir, "hosts") // YAML by its ending, by its content
	resultstest.WriteFile(t, badPort, []byte("validators:\n  hosts:\n    validator000:\n      ansible_port: ssh\n"))
	resultstest.WriteFile(t, ungrouped, []byte("# from terraform\nall:\n  hosts:\n    validator000:\n"))
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--manifest", bad}, []string{"bad.toml:2:1: load.rtae: unknown field"}},
		{[]string{"run", "--manifest", filepath.Join(e2eFixtures, "ci.toml")}, []string{"ci.toml:4:1: ipv6: cometlab's nodes listen on IPv4 loopback", "ci.toml:96:1: node.light01.mode: cometlab runs no light clients"}},
		{[]string{"run", "--format", "yaml"}, []string{`invalid manifest format "yaml"`}},
		{[]string{"testnet", "up", "--dir", filepath.Join(dir, "tn"), "--manifest", filepath.Join("..", "..", "testdata", "manifests", "zones.good.toml")},
			[]string{"[zones]: the relays that emulate the links live in cometlab's process"}},
		{[]string{"sweep", "--reuse-testnet", "--rates", "10", "--manifest", filepath.Join("..", "..", "testdata", "manifests", "perturb.good.toml")},
			[]string{"a shared testnet (--reuse-testnet) cannot be perturbed"}},
		{[]string{"run", "--manifest", filepath.Join(dir, "none.toml")}, []string{"none.toml"}},
		{[]string{"run", "--manifest", nop}, []string{`load.target: node "validator01" runs the nop mempool, where broadcast_tx fails`}},
		{[]string{"run", "--manifest", appKV}, []string{"mempool: the kvstore has no app-side mempool"}},
		{[]string{"sweep", "--rates", "10", "--cometbft-version", "v1.0.1", "--set", "adaptive_sync=false,true"}, []string{"v1.0.1 has no blocksync.adaptive_sync"}},
		{[]string{"run", "-r", "0"}, []string{"--rate"}},
		{[]string{"run", "-r", "fast"}, []string{"--rate"}},
		{[]string{"run", "-s", "1023"}, []string{"--size", "even"}},
		{[]string{"run", "--cometbft-version", "v9.9.9"}, []string{"v9.9.9"}},
		{[]string{"run", "--frobnicate"}, []string{"unknown flag"}},
		{[]string{"versions", "--apps"}, []string{"--apps builds the apps of the --build releases"}},
		{[]string{"ab", "--aa", "--partition", "50-50"}, []string{`--partition "50-50": want two groups or more`}},
		{[]string{"load", "-r", "10"}, []string{"endpoint"}},
		{[]string{"run", "--shape", "zigzag"}, []string{`--shape: invalid shape "zigzag"`}},
		{[]string{"run", "--shape", "square", "--on", "1s"}, []string{`--shape: shape "square" needs off`}},
		{[]string{"run", "--shape", "ramp", "--steps", "1,x", "--step", "1s"}, []string{"--steps: invalid rate"}},
		{[]string{"run", "--rate-to", "800"}, []string{`--rate-to: only for shape = "ramp" (shape is "constant")`}},
		{[]string{"run", "--shape", "trace", "--trace", filepath.Join(dir, "none.csv")}, []string{"--trace: trace: open"}},
		{[]string{"sweep", "--manifest", ramp, "--rates", "10"}, []string{`shape "ramp": sweeps and saturation searches step a constant rate`}},
		{[]string{"saturate", "--manifest", ramp}, []string{`shape "ramp"`}},
		{[]string{"run", "--txs", filepath.Join(dir, "none.txs")}, []string{"--txs: stat", "none.txs"}},
		{[]string{"run", "--txs", badTxs}, []string{"bad.txs:2: not base64", "because line 1 is not hex"}},
		{[]string{"run", "--txs", fewTxs, "-r", "10", "-T", "1s"}, []string{"few.txs holds 2 transactions, and the load schedules 10"}},
		{[]string{"load", "--endpoint", "ws://127.0.0.1:1/websocket", "--txs", badTxs}, []string{"bad.txs:2: not base64"}},
		{[]string{"sweep", "--txs", fewTxs, "--rates", "10"}, []string{"unknown flag: --txs"}},
		{[]string{"load", "--endpoint", "ws://127.0.0.1:1/websocket", "--metrics-url", "127.0.0.1:26660"}, []string{`--metrics-url "127.0.0.1:26660": want http://host:port/metrics`}},
		{[]string{"load", "--endpoint", "ws://127.0.0.1:1/websocket", "--metrics-url", "http://a:1/metrics,http://b:1/metrics", "--node-name", "a"},
			[]string{"--node-name: 1 names for 2 --metrics-url endpoints"}},
		{[]string{"load", "--endpoint", "ws://127.0.0.1:1/websocket", "--metrics-url", "http://a:1/metrics,http://a:1/metrics"}, []string{`--node-name "a:1": want a distinct`}},
		{[]string{"analyze"}, []string{"accepts 1 arg"}},
		{[]string{"sentinel", "--rate", "fast"}, []string{"--rate"}},
		{[]string{"sentinel", "--upstream", "ws://x"}, []string{"upstream", "http://host:port"}},
		{[]string{"sentinel", "--metrics", "0.0.0.0:9"}, []string{"loopback"}},
		{[]string{"sentinel", "--client-limit", "greedy=10/s,colour=3"}, []string{"unknown setting"}},
		{[]string{"sentinel", "--trusted-proxy", "10.0.0.0"}, []string{"--trusted-proxy"}},
		// cobra's own complaints: unknown commands, argument counts, required flags
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate" for "cometlab"`}},
		{[]string{"run", "extra"}, []string{`unknown command "extra" for "cometlab run"`}},
		{[]string{"analyze", "a", "b"}, []string{"accepts 1 arg(s), received 2"}},
		{[]string{"testnet", "down", "a", "b"}, []string{"accepts at most 1 arg(s), received 2"}},
		{[]string{"compare", "one"}, []string{"requires at least 2 arg(s), only received 1"}},
		{[]string{"load"}, []string{"--endpoint or --testnet: one is required"}},
		{[]string{"load", "--testnet", filepath.Join(dir, "none")}, []string{"--testnet: no running testnet in"}},
		{[]string{"load", "--testnet", dir, "--endpoint", "ws://127.0.0.1:1/websocket"}, []string{"--testnet: give it or --endpoint"}},
		{[]string{"deploy"}, []string{"--manifest: required"}},
		{[]string{"deploy", "--manifest", ramp}, []string{"the manifest has no [host.NAME] tables"}},
		{[]string{"deploy", "--manifest", hosts, "--out", dir}, []string{`hosts.toml:5:1: node.a.host: unknown host "h2"`}},
		{[]string{"deploy", "--manifest", ramp, "--inventory", badPort}, []string{`inv.yml:4: validators.hosts.validator000.ansible_port: ansible_port="ssh" is not a port number`}},
		{[]string{"deploy", "--manifest", ramp, "--inventory", ungrouped}, []string{"hosts:4: all.hosts.validator000: host validator000 is in no group"}},
		{[]string{"testnet", "up", "--manifest", goodHosts, "--dir", filepath.Join(dir, "up")}, []string{"start them with `cometlab deploy`"}},
		{[]string{"testnet", "down", "--hosts", dir, "x"}, []string{"give the directory once"}},
		{[]string{"ab"}, []string{"--cand: at least one candidate SPEC"}},
		{[]string{"ab", "--cand", "v0.40.0", "--repeat", "0"}, []string{`--repeat "0"`}},
		{[]string{"ab", "--cand", "timeout_commit=2s"}, []string{"--cand", "not a manifest key"}},
		{[]string{"ab", "--cand", "v0.40.0", "--order", "abba"}, []string{`--order "abba"`}},
		{[]string{"ab", "--cand", "validators=0"}, []string{"validators=0"}},
		{[]string{"ab", "--aa", "--cand", "v0.40.0"}, []string{"--aa runs --base on both sides: give no --cand"}},
		{[]string{"ab", "--cand", "v0.40.0", "--repeat", "auto", "--stop", "first"}, []string{`--stop "first": want all or worse`}},
		{[]string{"ab", "--cand", "v0.40.0", "--metrics", "latency_p99"}, []string{`--metrics: "latency_p99" is not a metric id`}},
		{[]string{"compare", "--noise", "/nonexistent/noise.json", "a", "b"}, []string{"--noise:", "no such file"}},
		{[]string{"completion", "bash", "extra"}, []string{`unknown command "extra" for "cometlab completion bash"`}},
		{[]string{"__complete"}, []string{"requires at least 1 arg(s), only received 0"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := run(t, c.args...)
			if code != exitcode.Usage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitcode.Usage, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestAnalyzeMissingRun(t *testing.T) {
	code, _, stderr := run(t, "analyze", filepath.Join(t.TempDir(), "nothing"))
	if code != exitcode.Failed || !strings.Contains(stderr, "nothing") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

// TestEndCodes maps how a run or sweep ended to the code its error carries.
func TestEndCodes(t *testing.T) {
	st := &state{stdout: io.Discard, stderr: io.Discard}
	partial := experiment.Result{Dir: "d", Run: results.Run{Status: results.StatusPartial, Errors: []string{"mempools not empty"}}}
	forked := &analysis.Safety{Checked: true, Heights: 9, DisagreeingHeights: 1,
		Disagreements: []analysis.Disagreement{{Height: 7, Hash: "app", Majority: "A", Agreed: []string{"v1", "v2", "v3"}, Differing: []analysis.NodeHash{{Node: "v4", Hash: "B"}}}}}
	unsafe := experiment.Result{Dir: "d", Run: results.Run{Status: results.StatusComplete}, Summary: analysis.Summary{Safety: forked}}
	unsafePartial := partial
	unsafePartial.Summary.Safety = forked
	healthy := experiment.Result{Dir: "d", Run: results.Run{Status: results.StatusComplete}, Summary: analysis.Summary{Safety: &analysis.Safety{Checked: true, Heights: 9}}}
	for _, c := range []struct {
		name string
		err  error
		code int
		ok   bool
	}{
		{"complete", printResult(st, experiment.Result{Run: results.Run{Status: results.StatusComplete}}, nil), 0, false},
		{"partial", printResult(st, partial, nil), exitcode.Partial, true},
		{"healthy", printResult(st, healthy, nil), 0, false},
		{"unsafe", printResult(st, unsafe, nil), exitcode.Unsafe, true},
		{"unsafe and partial", printResult(st, unsafePartial, nil), exitcode.Unsafe, true},
		{"an unsafe series", sweepResult(st, saturation.SweepRecord{}, "d", fmt.Errorf("sweep: %w", experiment.ErrUnsafe)), exitcode.Unsafe, true},
		{"failed", printResult(st, partial, errors.New("testnet start: timeout")), 0, false},
		{"some cells failed", sweepResult(st, saturation.SweepRecord{}, "d", fmt.Errorf("2 of 6: %w", series.ErrSomeFailed)), exitcode.Partial, true},
		{"sweep failed", sweepResult(st, saturation.SweepRecord{}, "d", errors.New("fetch")), 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, ok := exitcode.Of(c.err)
			if code != c.code || ok != c.ok {
				t.Errorf("%v: code %d, %v; want %d, %v", c.err, code, ok, c.code, c.ok)
			}
		})
	}
	if err := printResult(st, partial, nil); !strings.HasPrefix(err.Error(), "the run is partial: [mempools not empty]") {
		t.Errorf("message %q", err)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var e bytes.Buffer
	code := execute(ctx, &state{stdout: io.Discard, stderr: &e, args: []string{"analyze", filepath.Join(t.TempDir(), "nothing")}, hard: ctx})
	if code != exitcode.Interrupted || !strings.HasPrefix(e.String(), "cometlab: interrupted: ") {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
}

// TestCobraUsageCoded: the usage errors cobra makes in a command carry exit
// code 2 themselves; only those it makes where no hook runs (an unknown
// command at the root, the arguments of __complete) are recognised after
// the fact, by asking cobra again.
func TestCobraUsageCoded(t *testing.T) {
	for _, c := range []struct {
		args  []string
		coded bool
	}{
		{[]string{"run", "extra"}, true},
		{[]string{"run", "--frobnicate"}, true},
		{[]string{"analyze", "a", "b"}, true},
		{[]string{"testnet", "down", "a", "b"}, true},
		{[]string{"compare", "one"}, true},
		{[]string{"load"}, true},
		{[]string{"completion", "bash", "extra"}, true},
		{[]string{"help", "run", "--frobnicate"}, true},
		{[]string{"frobnicate"}, false},
		{[]string{"__complete"}, false},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			root := newRoot(&state{stdout: io.Discard, stderr: io.Discard, args: c.args, hard: context.Background()})
			err := root.Execute()
			if err == nil {
				t.Fatal("no error")
			}
			if code, ok := exitcode.Of(err); ok != c.coded || ok && code != exitcode.Usage {
				t.Errorf("%v: code %d, %v; want carried: %v", err, code, ok, c.coded)
			}
			if !c.coded && !rejectedUnhooked(root, c.args) {
				t.Errorf("%v: not recognised as a rejected command line", err)
			}
		})
	}
	// A command's own failure is not a usage error.
	args := []string{"analyze", filepath.Join(t.TempDir(), "nothing")}
	root := newRoot(&state{stdout: io.Discard, stderr: io.Discard, args: args, hard: context.Background()})
	if err := root.Execute(); err == nil || rejectedUnhooked(root, args) {
		t.Errorf("analyze of a missing run: %v, rejected: %v", err, rejectedUnhooked(root, args))
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"1GiB", 1 << 30, false}, {"512MiB", 512 << 20, false}, {"1.5 GiB", 3 << 29, false}, {"100", 100, false},
		{"0", 0, false}, {"2KiB", 2048, false}, {"1GB", 0, true}, {"-1GiB", 0, true}, {"lots", 0, true},
	} {
		got, err := parseBytes(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
