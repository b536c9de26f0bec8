package compare

import "testing"

func TestViolationWorse(t *testing.T) {
	row := func(id string, v Verdict) Row {
		return Row{ID: id, Candidates: []Cell{{Verdict: NoChange}, {Verdict: v}}}
	}
	tests := []struct {
		name string
		rows []Row
		want bool
	}{
		{"a violation worse", []Row{row("committed_txs", NoChange), row("safety_violations", Worse)}, true},
		{"disagreeing heights worse", []Row{row("disagreeing_heights", Worse)}, true},
		{"another figure worse", []Row{row("missing_txs", Worse), row("safety_violations", NoChange)}, false},
		{"fewer violations", []Row{row("safety_violations", Better)}, false},
		{"none", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ViolationWorse(Result{Metrics: tc.rows}); got != tc.want {
				t.Errorf("ViolationWorse = %v, want %v", got, tc.want)
			}
		})
	}
}
