package experiment_test

import (
	"testing"
)

// clockSkewManifest is 4 validators of v1.0.1, validator04's clock 2 s
// ahead, under 100 tx/s for 8 s.
const clockSkewManifest = `cometbft_version = "v1.0.1"
[node.validator01]
[node.validator02]
[node.validator03]
[node.validator04]
clock_skew = "2s"
[load]
rate = 100
duration = "8s"
`

// TestClockSkew runs a node on a skewed clock (clock_skew, v1.0's
// clock_skew build): every transaction commits, run.json records the
// skew, and the known answer is in the proposals' timestamps. A node
// receives a proposal at its clock's now, stamped with the block's time
// (the others' clocks): validator04's mean receive − timestamp
// (proposal_timestamp_diff_mean_ms, v1.0's
// consensus_proposal_timestamp_difference) exceeds every other node's by
// the skew, 2 s within half a second. Unskewed, the four would be within
// tens of ms of each other.
func TestClockSkew(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	res, _ := runBuilt(t, loadManifest(t, "skew.toml", clockSkewManifest))
	checkAccounted(t, res, 800)
	diff := map[string]float64{}
	for _, n := range []string{"validator01", "validator02", "validator03", "validator04"} {
		v, ok := res.Summary.Nodes[n]["proposal_timestamp_diff_mean_ms"]
		if !ok {
			t.Fatalf("%s: no proposal_timestamp_diff_mean_ms (nodes %v)", n, res.Summary.Nodes[n])
		}
		diff[n] = v
	}
	t.Logf("proposal receive − timestamp, mean ms: %v; untimely proposals %v", diff, res.Summary.Metrics["untimely_proposals"])
	for _, n := range []string{"validator01", "validator02", "validator03"} {
		if d := diff["validator04"] - diff[n]; d < 1500 || d > 2500 {
			t.Errorf("validator04's proposals arrive %.0f ms later than %s's by their clocks: want the 2-s skew, ± 0.5 s", d, n)
		}
	}
	skewed := false
	for _, n := range res.Run.Nodes {
		skewed = skewed || (n.Name == "validator04" && n.ClockSkewS == 2)
	}
	if !skewed {
		t.Errorf("run.json nodes %+v: want validator04 with clock_skew_s 2", res.Run.Nodes)
	}
}
