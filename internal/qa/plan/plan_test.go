package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// qaSides resolves the default manifest on two releases.
func qaSides(t *testing.T, base, cand string) []manifest.Resolved {
	t.Helper()
	var out []manifest.Resolved
	for _, v := range []string{base, cand} {
		m := manifest.Default()
		if err := m.Set("cometbft_version", v); err != nil {
			t.Fatal(err)
		}
		r, err := m.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func proven(t *testing.T, prefix string) string {
	t.Helper()
	l, ok := cometbft.LineByPrefix(prefix)
	if !ok {
		t.Fatalf("no line %s", prefix)
	}
	return l.Proven
}

// TestMakeLines: the plan per pair of release lines. A rolling upgrade
// runs only where the lines' facts allow it, and says why not otherwise;
// the steps not built are listed as such, never dropped.
func TestMakeLines(t *testing.T) {
	v038, v040, v037 := proven(t, "v0.38"), proven(t, "v0.40"), proven(t, "v0.37")
	for _, tt := range []struct {
		name, base, cand string
		upgrade          string // "" when it runs, else a part of the reason
		ve               string // the same for the vote-extension sweep
	}{
		{"v0.38 → v0.40", v038, v040, "cannot share a network", ""},
		{"v0.37 → v0.38", v037, v038, "ABCI", "the e2e app of " + v038 + " has no vote_extension_size"},
		{"patch upgrade", "v0.38.19", v038, "", "has no vote_extension_size"},
		{"A/A", v040, v040, "there is no release to upgrade to", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Make(Input{Sides: qaSides(t, tt.base, tt.cand), Labels: []string{"base", "cand"}})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, st := range p.Steps {
				ids = append(ids, st.ID)
			}
			if strings.Join(ids, " ") != strings.Join(Steps(), " ") {
				t.Errorf("steps %v", ids)
			}
			up := p.PlanStep(Upgrade)
			switch {
			case tt.upgrade == "" && (up.Skip != "" || len(up.Runs) != 1 || up.Runs[0].Side != "base"):
				t.Errorf("upgrade: %+v", up)
			case tt.upgrade != "" && !strings.Contains(up.Skip, tt.upgrade):
				t.Errorf("upgrade skip %q, want %q", up.Skip, tt.upgrade)
			}
			if tt.upgrade == "" {
				ch := strings.Join(up.Runs[0].Changes, " ")
				if !strings.Contains(ch, "perturb.validator01.action=upgrade perturb.validator01.to="+tt.cand+" perturb.validator01.at=12s") ||
					!strings.Contains(ch, "perturb.validator04.at=48s") {
					t.Errorf("upgrade changes %q", ch)
				}
			}
			// the lines here have pruning only: two cells on the candidate
			if st := p.PlanStep(Storage); st.NotBuilt || st.Skip != "" || len(st.Runs) != 1 || st.Runs[0].Side != "cand" ||
				st.Runs[0].Count != 2 || st.Runs[0].Changes[0] != "app=e2e" || len(p.StorageParams) != 1 ||
				p.StorageParams[0].Key != "app.retain_blocks" {
				t.Errorf("storage: %+v, params %+v", st, p.StorageParams)
			}
			switch ve := p.PlanStep(VoteExtensions); {
			case tt.ve == "" && (ve.Skip != "" || len(ve.Runs) != 1 || ve.Runs[0].Side != "cand" || ve.Runs[0].Count != 12 ||
				strings.Join(ve.Runs[0].Changes, " ") != "app=e2e"):
				t.Errorf("vote extensions: %+v", ve)
			case tt.ve != "" && !strings.Contains(ve.Skip, tt.ve):
				t.Errorf("vote extensions skip %q, want %q", ve.Skip, tt.ve)
			}
			for _, id := range []string{Saturation, Long, Rotation, Partition, AbsentStake} {
				if st := p.PlanStep(id); st.Skip != "" || len(st.Runs) == 0 {
					t.Errorf("%s: %+v", id, st)
				}
			}
		})
	}
}

// TestMakeEstimate: the estimate is each run's duration plus the
// overhead, step by step: the default manifest (60 s runs), 20 s of
// overhead, 3 rounds.
func TestMakeEstimate(t *testing.T) {
	v := proven(t, "v0.40")
	p, err := Make(Input{Sides: qaSides(t, v, v), Labels: []string{"base", "cand"}, Overhead: 20 * time.Second, OverheadFrom: "test"})
	if err != nil {
		t.Fatal(err)
	}
	probe := saturation.DefaultSearch(200, 60).ProbeDurationS // 10 s
	perSide := 2*(probe+20) + 4*80 + 12*80
	want := map[string]float64{Saturation: 2 * perSide, LoadStep: 0, Long: 6 * 80, Rotation: 6 * 80, Partition: 6 * 80,
		AbsentStake: 6 * 80, Upgrade: 0, VoteExtensions: 12 * 80, Storage: 2 * 80}
	total := 0.0
	for _, st := range p.Steps {
		if st.EstimateS != want[st.ID] {
			t.Errorf("%s: %v s, want %v", st.ID, st.EstimateS, want[st.ID])
		}
		total += want[st.ID]
	}
	if p.EstimateS != total || p.OverheadS != 20 || p.OverheadFrom != "test" {
		t.Errorf("estimate %v s, want %v; overhead %v from %q", p.EstimateS, total, p.OverheadS, p.OverheadFrom)
	}
	part := p.PlanStep(Partition).Runs[0]
	if strings.Join(part.Changes, " ") != "links=relay partition.split=50/50 partition.at=20s partition.duration=20s" || part.Count != 6 {
		t.Errorf("partition %+v", part)
	}
	p, err = Make(Input{Sides: qaSides(t, v, v), Labels: []string{"base", "cand"}, Long: true})
	if err != nil {
		t.Fatal(err)
	}
	if l := p.PlanStep(Long); l.Runs[0].DurationS != 3600 || l.EstimateS != 6*(3600+DefaultOverhead.Seconds()) || !strings.Contains(p.OverheadFrom, "default") {
		t.Errorf("--long: %+v, overhead from %q", l, p.OverheadFrom)
	}
}

// TestMakeBudget: a budget shrinks the plan in its documented order,
// only as far as it must, and says what it gave up; one below the
// smallest plan is refused with the budget that would do.
func TestMakeBudget(t *testing.T) {
	v := proven(t, "v0.40")
	in := Input{Sides: qaSides(t, v, v), Labels: []string{"base", "cand"}, Overhead: 20 * time.Second}
	full, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Budget = results.Seconds(full.EstimateS)
	if p, err := Make(in); err != nil || len(p.GaveUp) != 0 || p.EstimateS != full.EstimateS {
		t.Errorf("a budget that fits: %v, gave up %v", err, p.GaveUp)
	}

	// 5720 s planned: 1 round of the scenarios and of each vote-extension
	// size saves 1600 s, two sizes 160 s, the c = 4 column 640 s (the
	// storage matrix has one knob on v0.40: nothing to give up)
	in.Budget = time.Hour
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rotating nodes, vote-extension sizes, network partition, absent stake: 1 round instead of 3", "vote-extension sizes [0 32768] instead of [0 2048 8192 32768]",
		"saturation grid c ∈ [1 2] × r ∈ knee·{¼, ½, 1, 2} instead of c ∈ [1 2 4] × knee·{¼, ½, 1, 2}"}
	if strings.Join(p.GaveUp, "|") != strings.Join(want, "|") || p.EstimateS != 3320 || p.Repeat != 3 || p.BudgetS != 3600 {
		t.Errorf("1h: gave up %q, estimate %v, repeat %d", p.GaveUp, p.EstimateS, p.Repeat)
	}

	in.Budget = 10 * time.Minute
	p, err = Make(in)
	if code, _ := exitcode.Of(err); err == nil || code != exitcode.Usage || !strings.Contains(err.Error(), "give at least 40m0s") {
		t.Errorf("10m: %v (code %d)", err, code)
	}
	if p.Repeat != 2 || len(p.Connections) != 1 || len(p.Factors) != 3 || p.ScenarioRepeat != 1 {
		t.Errorf("smallest plan: %+v", p)
	}

	in.Long, in.Budget = true, 2*time.Hour // the long test halves from 1 h
	p, err = Make(in)
	if err != nil || p.LongDurationS >= 3600 || !strings.Contains(strings.Join(p.GaveUp, "|"), "long test of") {
		t.Errorf("--long, 2h: %v, long %v s, gave up %q", err, p.LongDurationS, p.GaveUp)
	}
}

// TestMakeRefusals: what the plan cannot take is refused before
// anything runs; what a side cannot do is skipped with the reason.
func TestMakeRefusals(t *testing.T) {
	v := proven(t, "v0.40")
	sides := qaSides(t, v, v)
	onHost := sides[1] // one side on hosts, the other here: the machines would be compared
	onHost.Hosts = []manifest.Host{{Name: "h1", Address: "10.0.0.1", SSHUser: "qa", SSHPort: 22}}
	if _, err := Make(Input{Sides: []manifest.Resolved{sides[0], onHost}, Labels: []string{"base", "cand"}}); err == nil ||
		!strings.Contains(err.Error(), "the cand runs on [host.*] hosts and the base on this machine") {
		t.Errorf("one side on hosts: %v", err)
	}
	for _, in := range []Input{
		{Sides: sides, Labels: []string{"base", "cand"}, Skip: []string{"sweep"}},
		{Sides: sides, Labels: []string{"base", "cand"}, Skip: []string{LoadStep}},
		{Sides: sides[:1], Labels: []string{"base"}},
		{Sides: sides, Labels: []string{"base", "cand"}, Factors: []float64{0}},
		{Sides: []manifest.Resolved{sides[0], onHost}, Labels: []string{"base", "cand"}},
	} {
		if _, err := Make(in); err == nil {
			t.Errorf("%+v: no error", in.Skip)
		} else if code, _ := exitcode.Of(err); code != exitcode.Usage {
			t.Errorf("%v: code %d", err, code)
		}
	}
	p, err := Make(Input{Sides: sides, Labels: []string{"base", "cand"}, Skip: []string{Saturation, Rotation}})
	if err != nil {
		t.Fatal(err)
	}
	if p.PlanStep(Saturation).Skip != "skipped: --skip saturation" || !strings.Contains(p.PlanStep(LoadStep).Skip, "the manifest's load") {
		t.Errorf("skipped saturation: %+v", p.Steps[:2])
	}
	one := manifest.Default()
	one.Validators = 1
	r, err := one.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	p, err = Make(Input{Sides: []manifest.Resolved{r, r}, Labels: []string{"base", "cand"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{Partition, AbsentStake} {
		if st := p.PlanStep(id); !strings.HasPrefix(st.Skip, "skipped: the base cannot run it:") {
			t.Errorf("one validator, %s: %q", id, st.Skip)
		}
	}
}

// TestQAOverhead: the overhead is the median of the complete runs'
// times besides their load.
func TestQAOverhead(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(status string, before, load, after time.Duration) results.Run {
		return results.Run{Status: status, Started: t0, LoadStart: t0.Add(before), LoadEnd: t0.Add(before + load), Ended: t0.Add(before + load + after)}
	}
	runs := []results.Run{run(results.StatusComplete, 8*time.Second, time.Minute, 6*time.Second),
		run(results.StatusComplete, 9*time.Second, time.Minute, 7*time.Second),
		run(results.StatusComplete, 30*time.Second, time.Minute, 30*time.Second),
		run(results.StatusFailed, time.Hour, time.Minute, time.Hour), {Status: results.StatusComplete}}
	if o, n := Overhead(runs); o != 16*time.Second || n != 3 {
		t.Errorf("overhead %v from %d runs, want 16s from 3", o, n)
	}
	if o, n := Overhead(nil); o != 0 || n != 0 {
		t.Errorf("no runs: %v, %d", o, n)
	}
}

// TestChooseQALoad: the method's rule over the candidate's c = 1 row.
func TestChooseQALoad(t *testing.T) {
	table := func(saturated ...bool) *saturation.Table {
		var cells []saturation.GridCell
		for i, s := range saturated {
			cells = append(cells, saturation.GridCell{ID: "c1", Connections: 1, Rate: float64(100 * (i + 1)),
				Runs: []saturation.GridRun{{Verdict: saturation.Verdict{Pass: !s}}}})
		}
		return saturation.Tables(cells)[0]
	}
	fallback := manifest.Workload{Connections: 2, Rate: 50}
	for _, tt := range []struct {
		name     string
		t        *saturation.Table
		o        *saturation.Outcome
		wantC    int
		wantR    float64
		wantRule string
	}{
		{"highest kept up", table(false, false, true, true), nil, 1, 200, "r = 200 tx/s kept up"},
		{"capped by the search", table(false, false, false, true), &saturation.Outcome{Recommended: 250}, 1, 200, "recommends at most 250"},
		{"none kept up", table(true, true), nil, 1, 100, "no c = 1 cell kept up"},
		{"kept up above the search", table(false, true), &saturation.Outcome{Recommended: 95}, 1, 95, "so that load, 95 tx/s"},
		{"no table", nil, nil, 2, 50, "the manifest's load"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := ChooseLoad(tt.t, tt.o, fallback)
			if l.Connections != tt.wantC || l.Rate != tt.wantR || !strings.Contains(l.Rule, tt.wantRule) {
				t.Errorf("%+v", l)
			}
		})
	}
	if got := GridRates(523, DefaultFactors); len(got) != 4 || got[0] != 130 || got[1] != 260 || got[2] != 520 || got[3] != 1050 {
		t.Errorf("grid rates %v", got)
	}
	if got := GridRates(6, DefaultFactors); got[0] != 2 || got[3] != 12 {
		t.Errorf("grid rates %v", got)
	}
}

// TestMakeOnHosts: a QA whose sides are on [host.*] hosts plans the
// steps hosts can run (each run deploys its testnet) and skips the others
// with the reason the manifest or the step gives, never silently.
func TestMakeOnHosts(t *testing.T) {
	base, cand := proven(t, "v0.38"), proven(t, "v0.40")
	var sides []manifest.Resolved
	for _, v := range []string{base, cand} {
		text := "links = \"direct\"\n[host.h1]\naddress = \"10.0.0.1\"\nssh_user = \"qa\"\n[host.h2]\naddress = \"10.0.0.2\"\nssh_user = \"qa\"\n"
		for i, h := range []string{"h1", "h1", "h2", "h2"} {
			text += fmt.Sprintf("[node.validator%02d]\nhost = %q\n", i+1, h)
		}
		path := filepath.Join(t.TempDir(), "hosts.toml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := manifest.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Set("cometbft_version", v); err != nil {
			t.Fatal(err)
		}
		r, err := m.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, r)
	}
	p, err := Make(Input{Sides: sides, Labels: []string{base, cand}})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		Saturation: "", Long: "", VoteExtensions: "",
		Rotation:    "rotation is not supported on [host.*] testnets",
		Partition:   "not supported on [host.*] testnets",
		AbsentStake: "absent validators are not supported on [host.*] testnets",
		Upgrade:     "skipped:",
		Storage:     "walked on this machine, and the " + cand + "'s nodes are on [host.*] hosts",
	} {
		st := p.PlanStep(id)
		switch {
		case want == "" && (st.Skip != "" || len(st.Runs) == 0):
			t.Errorf("step %s on hosts: skipped (%q), want runs", id, st.Skip)
		case want != "" && (len(st.Runs) > 0 || !strings.Contains(st.Skip, want)):
			t.Errorf("step %s on hosts: skip %q with %d runs, want it skipped with %q", id, st.Skip, len(st.Runs), want)
		}
	}
}
