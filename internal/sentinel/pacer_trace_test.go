package sentinel

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestPacerTrace replays the traces recorded from real testnets under the
// sentinel (testdata/pace_trace*.csv: at_ns,mempool,height,forwarded[,full],
// rate, written with --pace-trace; pace_trace.csv by TestSentinelFlood with
// the first, single-block AIMD, pace_trace_bench.csv by a sentinel arm of
// bench/sentinel.sh with this one, where the mempool filled once) through
// the default controller. Replayed
// open loop, the observations are the node's, not answers to these
// decisions, so the test checks what holds whatever the node did: the rate
// never leaves [Min, Max], is never raised while the mempool is at the
// working target or over Target, and every backoff has its cause (a full
// mempool, one over Target and growing, or sustained growth). The decisions,
// with the estimates behind them, are kept in a golden file next to each
// trace (-update rewrites it): a change to the rules shows there.
func TestPacerTrace(t *testing.T) {
	traces, err := filepath.Glob("testdata/pace_trace*.csv")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	for _, path := range traces {
		t.Run(filepath.Base(path), func(t *testing.T) {
			obs := readTrace(t, path)
			if len(obs) < 20 {
				t.Fatalf("%s has %d observations, want a real trace", path, len(obs))
			}
			cfg := DefaultPaceConfig()
			p := NewPacer(cfg)
			var golden strings.Builder
			golden.WriteString("at_s,mempool,height,rate,commit_tps,interval_s,target\n")
			over, backoffs := 0, 0
			for i, o := range obs {
				before := p.Rate()
				prev := o
				if i > 0 {
					prev = obs[i-1]
				}
				got := p.Observe(o)
				fmt.Fprintf(&golden, "%.3f,%d,%d,%.1f,%.1f,%.3f,%d\n", o.At.Seconds(), o.Mempool, o.Height, got,
					p.CommitRate(), p.BlockInterval().Seconds(), p.WorkingTarget())
				if got < cfg.Min || got > cfg.Max {
					t.Fatalf("observation %d: rate %g outside [%g, %g]", i+1, got, cfg.Min, cfg.Max)
				}
				if o.Mempool > cfg.Target {
					over++
				}
				if got > before && (o.Mempool >= p.WorkingTarget() || o.Mempool > cfg.Target || o.Full > prev.Full) {
					t.Fatalf("observation %d: rate raised %g → %g with the mempool at %d (target %d, Target %d)",
						i+1, before, got, o.Mempool, p.WorkingTarget(), cfg.Target)
				}
				if got < before {
					backoffs++
					if o.Full == prev.Full && o.Mempool <= prev.Mempool && o.Height == prev.Height {
						t.Fatalf("observation %d: backoff %g → %g without a cause (%+v after %+v)", i+1, before, got, o, prev)
					}
				}
			}
			t.Logf("%d observations, %d over Target, %d backoffs, commit rate %.0f tx/s, block interval %v",
				len(obs), over, backoffs, p.CommitRate(), p.BlockInterval().Round(time.Millisecond))
			resultstest.Golden(t, strings.TrimSuffix(path, ".csv")+".golden", []byte(golden.String()))
		})
	}
}

// readTrace reads a --pace-trace CSV; the full column is optional (older
// traces have none).
func readTrace(t *testing.T, path string) []Observation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: empty", path)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"at_ns", "mempool", "height", "forwarded"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("%s:1: no column %q in %v", path, h, rows[0])
		}
	}
	var obs []Observation
	for i, r := range rows[1:] {
		get := func(h string) int64 {
			j, ok := col[h]
			if !ok {
				return 0
			}
			v, err := strconv.ParseInt(r[j], 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", path, i+2, h, err)
			}
			return v
		}
		obs = append(obs, Observation{At: time.Duration(get("at_ns")), Mempool: get("mempool"),
			Height: get("height"), Forwarded: get("forwarded"), Full: get("full")})
	}
	if !slices.IsSortedFunc(obs, func(a, b Observation) int { return int(a.At - b.At) }) {
		t.Fatalf("%s: observations out of order", path)
	}
	return obs
}
