package history

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// historyOf is n runs of the fixture's series with committed_tps tps[i]
// and block_latency_p50_ms 900 + i%3.
func historyOf(tps ...float64) []Run {
	var runs []Run
	for i, v := range tps {
		runs = append(runs, synthetic(fmt.Sprintf("/runs/h%02d", i), day(i), map[string]float64{"committed_tps": v, "block_latency_p50_ms": 900 + float64(i%3)}))
	}
	return runs
}

func TestJudge(t *testing.T) {
	steady := historyOf(200, 201, 199, 200, 202, 198, 200, 201)
	cfg := DefaultGate()
	for _, c := range []struct {
		name    string
		history []Run
		new     map[string]float64
		cfg     func(*GateConfig)
		verdict string
		figures string // figure verdicts in order
	}{
		{"pass", steady, map[string]float64{"committed_tps": 199, "block_latency_p50_ms": 901}, nil, GatePass, "committed_tps no_change, block_latency_p50_ms no_change"},
		{"regression", steady, map[string]float64{"committed_tps": 170, "block_latency_p50_ms": 901}, nil, GateRegression, "committed_tps worse, block_latency_p50_ms no_change"},
		{"latency up", steady, map[string]float64{"committed_tps": 200, "block_latency_p50_ms": 1100}, nil, GateRegression, "committed_tps no_change, block_latency_p50_ms worse"},
		{"better", steady, map[string]float64{"committed_tps": 240}, nil, GatePass, "committed_tps better"},
		{"significant but small", steady, map[string]float64{"committed_tps": 193}, nil, GatePass, "committed_tps no_change"},
		{"small, with a lower threshold", steady, map[string]float64{"committed_tps": 193}, func(c *GateConfig) { c.ThresholdPct = 2 }, GateRegression, "committed_tps worse"},
		{"large but within the noise", historyOf(150, 250, 180, 240, 160), map[string]float64{"committed_tps": 120}, nil, GatePass, "committed_tps no_change"},
		{"a noise floor above the threshold", steady, map[string]float64{"committed_tps": 170}, func(c *GateConfig) { c.Floor = func([]float64) float64 { return 40 } }, GatePass, "committed_tps no_change"},
		{"too few", historyOf(200, 201), map[string]float64{"committed_tps": 100}, nil, GateInsufficient, "committed_tps too_few"},
		{"none", nil, map[string]float64{"committed_tps": 100}, nil, GateInsufficient, "committed_tps too_few"},
		{"the new run lacks the figures", steady, map[string]float64{"blocks": 3}, nil, GateInsufficient, ""},
		{"constant history", historyOf(200, 200, 200), map[string]float64{"committed_tps": 180}, nil, GateRegression, "committed_tps worse"},
		{"after a change point", historyOf(100, 101, 99, 100, 200, 201, 199, 200), map[string]float64{"committed_tps": 150},
			func(c *GateConfig) { c.Detect = func([]float64) []ChangePoint { return []ChangePoint{{Index: 4}} } }, GateRegression, "committed_tps worse"},
		{"too few since the change point", historyOf(100, 101, 99, 100, 200, 201), map[string]float64{"committed_tps": 150},
			func(c *GateConfig) { c.Detect = func([]float64) []ChangePoint { return []ChangePoint{{Index: 4}} } }, GateInsufficient, "committed_tps too_few"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cf := cfg
			if c.cfg != nil {
				c.cfg(&cf)
			}
			res := Judge(c.history, []Run{synthetic("/runs/new", day(30), c.new)}, cf)
			var got []string
			for _, j := range res.Judged {
				got = append(got, j.Figure+" "+j.Verdict)
			}
			if res.Verdict != c.verdict || strings.Join(got, ", ") != c.figures {
				t.Errorf("verdict %s (%s), want %s (%s)", res.Verdict, strings.Join(got, ", "), c.verdict, c.figures)
			}
		})
	}
}

// TestJudgeRuns: several new runs (an A/B side) are judged by their mean,
// with the interval of a mean of m.
func TestJudgeRuns(t *testing.T) {
	h := historyOf(200, 204, 196, 200, 204, 196)
	one := Judge(h, historyOf(189), DefaultGate())
	three := Judge(h, historyOf(189, 189, 189), DefaultGate())
	if one.Judged[0].P <= three.Judged[0].P || three.Judged[0].M != 3 {
		t.Errorf("p of one run %v, of three %v", one.Judged[0].P, three.Judged[0].P)
	}
}

// TestGateMarkdown keeps the gate's summary under review (golden).
func TestGateMarkdown(t *testing.T) {
	res := Judge(historyOf(200, 201, 199, 200, 202, 198, 200, 201), []Run{synthetic("/runs/new", day(30), map[string]float64{"committed_tps": 170, "block_latency_p50_ms": 901})}, DefaultGate())
	var md, text bytes.Buffer
	if err := res.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	resultstest.Golden(t, filepath.Join("testdata", "gate.golden.md"), md.Bytes())
	resultstest.Golden(t, filepath.Join("testdata", "gate.golden.txt"), text.Bytes())
}

func TestMakeTrend(t *testing.T) {
	runs := historyOf(200, 190, 210)
	runs[0].Release, runs[1].Release, runs[2].Release = "v1.0.0", "v0.38.26", "v0.40.0"
	runs = append(runs, synthetic("/runs/none", day(9), nil))
	byRelease := MakeTrend(runs, "committed_tps", ByRelease, nil)
	if got := fmt.Sprint(byRelease.Values()); got != "[190 210 200]" || byRelease.Detected || byRelease.Unit != "tx/s" || byRelease.Better != "higher" {
		t.Errorf("by release %+v", byRelease)
	}
	byTime := MakeTrend(runs, "committed_tps", ByTime, func(xs []float64) []ChangePoint { return []ChangePoint{{Index: 1, Magnitude: xs[1] - xs[0]}} })
	if got := fmt.Sprint(byTime.Values()); got != "[200 190 210]" || !byTime.Detected || byTime.ChangePoints[0].Magnitude != -10 {
		t.Errorf("by time %+v", byTime)
	}
	if g := Groups(append(runs, synthetic("/other", day(1), nil), func() Run { r := synthetic("/big", day(2), nil); r.Host.Cores = 64; return r }())); len(g) != 2 || len(g[0].Runs) != 5 || g[1].Runs[0].Dir != "/big" {
		t.Errorf("groups %+v", g)
	}
}

func TestLocate(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		flag string
		env  func(string) string
		want string
	}{
		{"/x.db", env(Env, "off"), "/x.db"},
		{"", env(Env, "/y.db", "HOME", "/home/q"), "/y.db"},
		{"", env(Env, "OFF"), "error: " + ErrOff.Error()},
		{"", env("XDG_DATA_HOME", "/data", "HOME", "/home/q"), "/data/cometlab/history.db"},
		{"", env("XDG_DATA_HOME", "relative", "HOME", "/home/q"), "/home/q/.local/share/cometlab/history.db"},
		{"", env(), "error: no home directory ($HOME) for the history index: give --index FILE or set COMETLAB_HISTORY"},
	} {
		got, err := Locate(c.flag, c.env)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != c.want {
			t.Errorf("Locate(%q) = %q, want %q", c.flag, got, c.want)
		}
	}
}
