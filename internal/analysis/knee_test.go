package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

func TestKnee(t *testing.T) {
	tests := []struct {
		name               string
		offered, committed []float64
		want               int
		found              bool
	}{
		{"keeps up", []float64{100, 200, 300, 400}, []float64{99, 195, 290, 380}, 0, false},
		{"falls and stays", []float64{100, 200, 300, 400, 500}, []float64{100, 200, 250, 260, 255}, 2, true},
		{"one noisy window is not a knee", []float64{100, 200, 300, 400, 500, 600}, []float64{100, 150, 300, 400, 420, 430}, 4, true},
		{"two windows left suffice", []float64{100, 200, 300, 400}, []float64{100, 200, 250, 250}, 2, true},
		{"the last window alone is not a knee", []float64{100, 200, 300, 400}, []float64{100, 200, 300, 250}, 0, false},
		{"exactly at the tolerance is not below", []float64{100, 100, 100}, []float64{90, 90, 90}, 0, false},
		{"below from the start", []float64{100, 100, 100}, []float64{10, 10, 10}, 0, true},
		{"empty", nil, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := Knee(tt.offered, tt.committed, KneeTolerance, KneePersist)
			if k != tt.want || ok != tt.found {
				t.Errorf("Knee = %d, %v; want %d, %v", k, ok, tt.want, tt.found)
			}
		})
	}
}

// rampRun is a ramp from 200 to 2200 tx/s over 40 s into a network that
// commits at most capacity tx/s, in blocks of 1 s, each transaction
// committed lag after its send while there is room (a queue otherwise).
func rampRun(capacity float64, lag time.Duration) Input {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	start := t0.UnixNano()
	const dur = 40.0
	in := Input{Run: results.Run{LoadStart: t0, LoadEnd: t0.Add(40 * time.Second), FirstHeight: 1,
		Load: results.Load{Connections: 1, Rate: 200, DurationS: dur, Shape: "ramp", Expected: 48000}}}
	// Λ(t) = 200t + 25t², sends at its inverse.
	var sends []int64
	for m := 0; m < 48000; m++ {
		x := float64(m)
		tau := 2 * x / (200 + math.Sqrt(200*200+100*x))
		sends = append(sends, start+int64(tau*1e9))
		in.Sent = append(in.Sent, results.Sent{Seq: uint64(m), Intended: sends[m], Actual: sends[m]})
	}
	// Blocks every second; block h (commit at start + h s) takes up to
	// capacity of the sends at least lag old.
	next := 0
	for h := int64(1); next < len(sends); h++ {
		commit := start + h*int64(time.Second)
		k := results.Block{Height: h, Time: commit - int64(time.Second), CommitTime: commit}
		for next < len(sends) && float64(k.RunTxs) < capacity && sends[next]+int64(lag) <= commit {
			in.Txs = append(in.Txs, results.Tx{Seq: uint64(next), Sent: sends[next], Height: h, CommitTime: commit})
			k.RunTxs++
			next++
		}
		in.Blocks = append(in.Blocks, k)
	}
	return in
}

// TestKneeOfRamp checks knee_tps against a known capacity: the knee is
// reported at the first 5 s window whose offer exceeds the capacity by more
// than the tolerance, and not at all when the ramp never reaches it.
func TestKneeOfRamp(t *testing.T) {
	s := Summarize(rampRun(1450, 1500*time.Millisecond))
	got, ok := s.Metrics["knee_tps"]
	// The committed rate plateaus at the capacity once the offer passes it.
	if !ok || got < 1440 || got > 1460 {
		t.Fatalf("knee_tps = %v (%v), want 1450 ± 10; notes %q", got, ok, s.Notes)
	}
	s = Summarize(rampRun(5000, 1500*time.Millisecond))
	if v, ok := s.Metrics["knee_tps"]; ok {
		t.Errorf("knee_tps = %v for a ramp that never saturates", v)
	}
	// A constant run has no knee.
	in := rampRun(1450, time.Second)
	in.Run.Load.Shape = ""
	if v, ok := Summarize(in).Metrics["knee_tps"]; ok {
		t.Errorf("knee_tps = %v for a constant run", v)
	}
}
