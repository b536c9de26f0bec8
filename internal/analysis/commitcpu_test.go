package analysis

import (
	"fmt"
	"math"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestCommitCPUSeries: a node whose every block costs 300 ms of CPU over
// 1.2-s intervals (25 % of a core) gives 25 at every commit, whatever the
// phase; a restart (new PID) starts a new baseline; a hole longer than
// the gap is a NaN; nodes not asked for and the app rows are left out.
func TestCommitCPUSeries(t *testing.T) {
	const ms = int64(1e6)
	var rows []results.CommitCPU
	for h := int64(1); h <= 5; h++ {
		rows = append(rows, results.CommitCPU{Height: h, Node: "v1", At: h * 1200 * ms, PID: 7, CPU: h * 300 * ms})
		rows = append(rows, results.CommitCPU{Height: h, Node: "v1/app", At: h * 1200 * ms, PID: 8, CPU: h * ms})
	}
	// Restarted at height 6 (its CPU counts from 0 again), then a 10-s hole.
	rows = append(rows,
		results.CommitCPU{Height: 6, Node: "v1", At: 7200 * ms, PID: 9, CPU: 20 * ms},
		results.CommitCPU{Height: 7, Node: "v1", At: 8400 * ms, PID: 9, CPU: 620 * ms},
		results.CommitCPU{Height: 15, Node: "v1", At: 18400 * ms, PID: 9, CPU: 1620 * ms},
		results.CommitCPU{Height: 1, Node: "v2", At: 0, PID: 3, CPU: 0},
	)
	got := CommitCPUSeries(rows, []string{"v1"}, 5000*ms)
	if len(got) != 1 || got[0].Node != "v1" {
		t.Fatalf("series %+v", got)
	}
	// Without a gap, the node's own: 5 × its median 1.2-s interval.
	if d := CommitCPUSeries(rows, []string{"v1"}, 0); fmt.Sprint(d[0].T) != fmt.Sprint(got[0].T) || !math.IsNaN(d[0].V[len(d[0].V)-1]) {
		t.Errorf("derived gap: %+v, want the 10-s hole a NaN as with 5 s", d[0])
	}
	wantT := []int64{2400 * ms, 3600 * ms, 4800 * ms, 6000 * ms, 8400 * ms, 18400 * ms}
	wantV := []float64{25, 25, 25, 25, 50, math.NaN()}
	s := got[0]
	if len(s.T) != len(wantT) {
		t.Fatalf("times %v, want %v", s.T, wantT)
	}
	for i := range wantT {
		if s.T[i] != wantT[i] || !(math.Abs(s.V[i]-wantV[i]) < 1e-9 || math.IsNaN(s.V[i]) && math.IsNaN(wantV[i])) {
			t.Errorf("point %d: (%d, %v), want (%d, %v)", i, s.T[i], s.V[i], wantT[i], wantV[i])
		}
	}
}
