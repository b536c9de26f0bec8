package sentinel

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestPacerTrace replays a trace recorded from a real testnet under the
// sentinel (testdata/pace_trace.csv: at_ns,mempool,height,forwarded,rate,
// written with --pace-trace by TestSentinelFlood -update): the controller,
// fed the same observations, makes the same decisions (the same rates, to
// the float), never leaves [Min, Max], and never raises the rate while the
// mempool is over its target. A change to the controller's rules shows here
// as a different rate; re-record with -update.
func TestPacerTrace(t *testing.T) {
	f, err := os.Open("testdata/pace_trace.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 20 {
		t.Fatalf("trace has %d rows, want a real one", len(rows))
	}
	cfg := tracePaceConfig()
	p := NewPacer(cfg)
	over := 0
	for i, r := range rows[1:] {
		n := make([]float64, len(r))
		for j, v := range r {
			if n[j], err = strconv.ParseFloat(v, 64); err != nil {
				t.Fatalf("row %d: %v", i+2, err)
			}
		}
		at, err := strconv.ParseInt(r[0], 10, 64)
		if err != nil {
			t.Fatalf("row %d: %v", i+2, err)
		}
		before := p.Rate()
		o := Observation{At: time.Duration(at), Mempool: int64(n[1]), Height: int64(n[2]), Forwarded: int64(n[3])}
		got := p.Observe(o)
		if diff := got - n[4]; diff > 1e-9*n[4] || diff < -1e-9*n[4] {
			t.Fatalf("row %d: rate %.1f, the recording says %.1f", i+2, got, n[4])
		}
		if got < cfg.Min || got > cfg.Max {
			t.Fatalf("row %d: rate %g outside [%g, %g]", i+2, got, cfg.Min, cfg.Max)
		}
		if o.Mempool > cfg.Target {
			over++
			if got > before {
				t.Fatalf("row %d: rate raised %g → %g with the mempool at %d > target", i+2, before, got, o.Mempool)
			}
		}
	}
	t.Logf("%d observations, %d over target", len(rows)-1, over)
}

// tracePaceConfig is the controller's setting testdata/pace_trace.csv was
// recorded with (TestSentinelFlood uses it): the defaults but for a target
// of 2,000 txs.
func tracePaceConfig() PaceConfig {
	c := DefaultPaceConfig()
	c.Target = 2000
	return c
}
