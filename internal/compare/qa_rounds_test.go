package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/sequential"
)

// TestQAMoreRounds: an undecided figure (over 10 %, not significant)
// wants more rounds while the budget allows; the sequential rule decides
// it, or the budget is spent and it is "undecided after N rounds".
func TestQAMoreRounds(t *testing.T) {
	// Block latency swings from round to round (a busy host); the
	// candidate is 30 % slower in every round. Welch's t over the runs
	// sees the swing, the paired rounds see the 30 %.
	swing := []float64{1000, 2000, 600, 1500, 800, 1800}
	slower := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = swing[i]*1.3 + float64(i%3)
		}
		return out
	}
	noisy := []float64{1000, 1500, 700}
	noisyCand := []float64{1500, 1100, 1000}
	h := func(n int) []float64 { return make([]float64, n) }
	heights := func(n int) []float64 {
		out := h(n)
		for i := range out {
			out[i] = 40
		}
		return out
	}
	twos := func(n int) []float64 {
		out := h(n)
		for i := range out {
			out[i] = 2
		}
		return out
	}
	for _, tt := range []struct {
		name          string
		base, cand    map[string][]float64
		budget        int
		id            string
		more          bool
		outcome       sequential.Outcome
		verdict, text string
	}{
		{"noisy after 3 of 10 rounds: more", map[string][]float64{"block_latency_p50_ms": noisy},
			map[string][]float64{"block_latency_p50_ms": noisyCand}, 10, "block_latency_p50_ms", true, sequential.Undecided,
			string(QABeyondNotSignificant), "undecided"},
		{"noisy, the budget spent: undecided after 3 rounds", map[string][]float64{"block_latency_p50_ms": noisy},
			map[string][]float64{"block_latency_p50_ms": noisyCand}, 3, "block_latency_p50_ms", false, sequential.Undecided,
			string(QABeyondNotSignificant), "undecided after 3 rounds"},
		{"30 % slower in every round of 6: decided worse", map[string][]float64{"block_latency_p50_ms": swing},
			map[string][]float64{"block_latency_p50_ms": slower(6)}, 6, "block_latency_p50_ms", false, sequential.Worse,
			string(QARegression), "regression"},
		{"slow heights 0,0,0 v 2,2,2 after 3 of 10: more", map[string][]float64{"slow_heights": h(3), "blocks": heights(3),
			"block_latency_p50_ms": {1000, 1001, 1002}}, map[string][]float64{"slow_heights": twos(3), "blocks": heights(3),
			"block_latency_p50_ms": {1000, 1001, 1003}}, 10, "slow_heights", true, sequential.Undecided, string(QABeyondNotSignificant), "undecided"},
		{"slow heights 0 v 2 in every of 10 rounds: decided worse", map[string][]float64{"slow_heights": h(10), "blocks": heights(10)},
			map[string][]float64{"slow_heights": twos(10), "blocks": heights(10)}, 10, "slow_heights", false, sequential.Worse,
			string(QARegression), "regression"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, c := countSides(tt.base, tt.cand)
			res, err := Sides(b, []Side{c}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			figs := QAFigures(res)
			before := figByID(t, figs, tt.id)
			// Every case starts undecided but the 10 rounds of counts,
			// which the rate test over the runs may call at once.
			if QAVerdict(before.Verdict) != QABeyondNotSignificant && (tt.id != "slow_heights" || tt.more) {
				t.Fatalf("before the look: %s (%s), want undecided", before.Verdict, before.Reason)
			}
			look, err := QAMoreRounds(res, figs, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			if look.More != tt.more {
				t.Errorf("more = %v, want %v (%+v)", look.More, tt.more, look)
			}
			after := figByID(t, ApplyQALook(figs, look), tt.id)
			if QAVerdict(before.Verdict) == QABeyondNotSignificant {
				if got := look.Figures[tt.id].Outcome; got != tt.outcome {
					t.Errorf("outcome %s, want %s", got, tt.outcome)
				}
			}
			// A figure the sequential rule decided says so where the
			// fixed-sample test said "not significant" (the remade
			// v0.40.0 report had "not significant | regression").
			if decided := QAVerdict(before.Verdict) == QABeyondNotSignificant && tt.outcome != sequential.Undecided; decided !=
				strings.HasPrefix(after.Significance, "significant by the sequential rule") {
				t.Errorf("significance %q after the look (outcome %s)", after.Significance, tt.outcome)
			}
			if after.Verdict != tt.verdict || QAFigureVerdictText(after, 10) != tt.text {
				t.Errorf("verdict %s, %q; want %s, %q (%s)", after.Verdict, QAFigureVerdictText(after, 10), tt.verdict, tt.text, after.Reason)
			}
		})
	}
	// Nothing undecided: no more rounds.
	b, c := countSides(map[string][]float64{"block_latency_p50_ms": {1000, 1001, 999}}, map[string][]float64{"block_latency_p50_ms": {1000, 1002, 998}})
	res, err := Sides(b, []Side{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if look, err := QAMoreRounds(res, QAFigures(res), 10); err != nil || look.More {
		t.Errorf("nothing undecided: %+v, %v", look, err)
	}
}

func figByID(t *testing.T, figs []results.QAFigure, id string) results.QAFigure {
	t.Helper()
	for _, f := range figs {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no figure %s", id)
	return results.QAFigure{}
}

// TestQARuleAndSignificance: the 10 % rule and significance each in a
// word, beside the verdict they make together.
func TestQARuleAndSignificance(t *testing.T) {
	b, c := countSides(map[string][]float64{"block_latency_p50_ms": {1000, 1010, 990}, "committed_tps": {400, 401, 399}},
		map[string][]float64{"block_latency_p50_ms": {1300, 1310, 1290}, "committed_tps": {388, 389, 387}})
	res, err := Sides(b, []Side{c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	figs := QAFigures(res)
	lat, tps := figByID(t, figs, "block_latency_p50_ms"), figByID(t, figs, "committed_tps")
	if lat.Rule != QARuleWorse || lat.Significance != QASignificant || lat.NBase != 3 || lat.NCand != 3 || lat.CILo == nil ||
		lat.Delta == nil || *lat.Delta != 300 || !strings.Contains(lat.Test, "Holm") {
		t.Errorf("latency %+v", lat)
	}
	if tps.Rule != QARuleWithin || tps.Significance != QASignificant || tps.Verdict != string(QAWorseWithin) {
		t.Errorf("throughput %+v", tps)
	}
	if got := QARuleText(lat.Rule, 10); got != "worse by over 10 %" {
		t.Errorf("rule text %q", got)
	}
}

// TestQAJudge: the runner's one call, round after round. Block latency
// swings from round to round and is 30 % higher on the candidate: after
// 3 rounds of a budget of 6 it is undecided and wants more; with 6 the
// sequential rule decides it worse, and no round more is wanted.
func TestQAJudge(t *testing.T) {
	swing := []float64{1000, 2000, 600, 1500, 800, 1800}
	slower := make([]float64, len(swing))
	for i, v := range swing {
		slower[i] = v*1.3 + float64(i%3)
	}
	for _, tt := range []struct {
		rounds  int
		more    bool
		verdict QAVerdict
	}{{3, true, QABeyondNotSignificant}, {6, false, QARegression}} {
		b, c := countSides(map[string][]float64{"block_latency_p50_ms": swing[:tt.rounds]},
			map[string][]float64{"block_latency_p50_ms": slower[:tt.rounds]})
		res, err := Sides(b, []Side{c}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		figs, look, err := QAJudge(res, 6)
		if err != nil {
			t.Fatal(err)
		}
		f := figByID(t, figs, "block_latency_p50_ms")
		if look.More != tt.more || QAVerdict(f.Verdict) != tt.verdict || look.Rounds != tt.rounds {
			t.Errorf("after %d rounds: more %v, %s (%s); want more %v, %s", tt.rounds, look.More, f.Verdict, f.Reason, tt.more, tt.verdict)
		}
		// No more rounds (the budget spent, or a report of the rounds it
		// has): an undecided figure says after how many; a decided one is
		// as it was.
		final := figByID(t, QAFinal(figs, look.Rounds), "block_latency_p50_ms")
		want := QAFigureVerdictText(f, 10)
		if tt.verdict == QABeyondNotSignificant {
			want = fmt.Sprintf("undecided after %d rounds", tt.rounds)
		}
		if got := QAFigureVerdictText(final, 10); got != want || final.Verdict != f.Verdict {
			t.Errorf("after %d rounds, final: %q (%s), want %q", tt.rounds, got, final.Verdict, want)
		}
	}
}
