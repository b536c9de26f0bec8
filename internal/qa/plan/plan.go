package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// The steps of the QA method, in its order; --skip takes their ids
// (LoadStep, chosen by the saturation step, has no runs of its own).
const (
	Saturation     = "saturation"
	LoadStep       = "qa-load"
	Long           = "long"
	Rotation       = "rotation"
	VoteExtensions = "vote-extensions"
	Partition      = "partition"
	AbsentStake    = "absent-stake"
	Upgrade        = "upgrade"
	Storage        = "storage"
)

// Steps are the steps' ids in the method's order.
func Steps() []string {
	return []string{Saturation, LoadStep, Long, Rotation, VoteExtensions, Partition, AbsentStake, Upgrade, Storage}
}

// Defaults of the plan.
const (
	// DefaultOverhead is a run's time besides its load when no run here
	// has measured it: start-up of a 4-validator testnet (homes, processes,
	// two heights), drain, read-back, stop, analysis and report.
	DefaultOverhead = 20 * time.Second
	// DefaultRepeat is the long test's rounds (ab's default).
	DefaultRepeat = 3
	// LongDuration is the long test's length with --long.
	LongDuration = time.Hour
	// qaSearchTypical is the runs a search usually takes (of which
	// qaSearchProbes are shorter growth probes): the plan's estimate; its
	// MaxRuns bounds it.
	qaSearchTypical = 6
	qaSearchProbes  = 2
)

// DefaultConnections and DefaultFactors are the method's grid: c ∈
// {1, 2, 4} and r ∈ knee·{¼, ½, 1, 2} (its {200, 400, 800, 1600} around
// 400). DefaultVoteExtensionSizes are the vote-extension sweep's sizes
// (0: the app's own 8-byte extension, the published report's baseline).
var (
	DefaultConnections        = []int{1, 2, 4}
	DefaultFactors            = []float64{0.25, 0.5, 1, 2}
	DefaultVoteExtensionSizes = []int{0, 2048, 8192, 32768}
)

// qaNotBuilt names the steps of the method this cometlab does not run as
// part of qa yet, and what to use instead: --plan lists them, never
// silently. Every step is built today.
var qaNotBuilt = map[string]string{}

// Input is what the plan is made from.
type Input struct {
	// Sides are the baseline's and the candidate's resolved manifests, as
	// ABSides returns them, and Labels their names.
	Sides  []manifest.Resolved
	Labels []string
	// Skip are step ids not to run (--skip).
	Skip []string
	// Repeat is the long test's rounds (0: DefaultRepeat); the other
	// compared tests run as many, unless the budget takes some.
	Repeat int
	// Long makes the long test an hour (LongDuration).
	Long bool
	// Budget bounds the estimate (0: none): the plan shrinks in a fixed
	// order (see Make) and says what it gave up.
	Budget time.Duration
	// Overhead is a run's time besides its load (0: DefaultOverhead),
	// OverheadFrom where it was measured.
	Overhead     time.Duration
	OverheadFrom string
	// Connections, Factors and SearchRuns shape the saturation step (nil
	// or 0: the defaults).
	Connections []int
	Factors     []float64
	SearchRuns  int
}

// qaSettings are what the budget may shrink.
type qaSettings struct {
	repeat, scenario, searchRuns int
	conns                        []int
	factors                      []float64
	long                         time.Duration
	veSizes                      []int
	// storage is the storage matrix's run length, storageKnobs how many
	// of the candidate's storage knobs (cometbft.StorageKnobs) it varies.
	storage      time.Duration
	storageKnobs int
}

// Make makes the plan of a QA: every step in the method's order with
// its runs and their estimated time (each run its load's duration plus the
// overhead), or the reason it does not run — skipped by --skip, a step
// the sides cannot do (checked by resolving each side with the step's
// changes, and for the rolling upgrade by the release lines' facts), or
// not built yet. It is pure.
//
// Under a budget the plan shrinks, in this order, each as far as needed
// and no further: the other tests' rounds (rotation, each vote-extension
// size, partition, absent stake) down to 1; the vote-extension sizes down to the smallest
// and the largest; the storage matrix's knobs from the last (backend, key
// layout, compaction) down to pruning alone; the saturation grid (the largest c while more than two
// are left, then the lowest factor while more than three are left, then
// the largest c, down to c = 1 × three factors); the long test's length
// (halved, down to the manifest's duration); the storage matrix's run
// length likewise; the long test's rounds down to 2. A budget smaller than that smallest plan is refused (exit 2) with
// the smallest budget that would do.
func Make(in Input) (results.QAPlan, error) {
	if err := checkPlanInput(in); err != nil {
		return results.QAPlan{}, exitcode.With(err, exitcode.Usage)
	}
	overhead, from := in.Overhead, in.OverheadFrom
	if overhead <= 0 {
		overhead, from = DefaultOverhead, "the default: no finished run here to measure it from"
	}
	s := qaSettings{repeat: cmpOr(in.Repeat, DefaultRepeat), searchRuns: cmpOr(in.SearchRuns, saturation.DefaultSearch(1, 60).MaxRuns),
		conns: slices.Clone(in.Connections), factors: slices.Clone(in.Factors), long: in.Sides[1].Load.Duration,
		veSizes: slices.Clone(DefaultVoteExtensionSizes), storage: in.Sides[1].Load.Duration,
		storageKnobs: len(cometbft.StorageKnobs(in.Sides[1].CometBFTVersion))}
	s.scenario = s.repeat
	if len(s.conns) == 0 {
		s.conns = slices.Clone(DefaultConnections)
	}
	if len(s.factors) == 0 {
		s.factors = slices.Clone(DefaultFactors)
	}
	s.conns, s.factors = slices.Compact(slices.Sorted(slices.Values(s.conns))), slices.Compact(slices.Sorted(slices.Values(s.factors)))
	if in.Long {
		s.long, s.storage = LongDuration, LongDuration
	}
	p := buildPlan(in, s, overhead)
	p.OverheadFrom = from
	if in.Budget <= 0 || p.EstimateS <= in.Budget.Seconds() {
		p.BudgetS = in.Budget.Seconds()
		return p, nil
	}
	shrunk, gaveUp := s, []string(nil)
	for _, op := range qaShrinks(in, s) {
		for buildPlan(in, shrunk, overhead).EstimateS > in.Budget.Seconds() {
			next, ok := op.shrink(shrunk)
			if !ok {
				break
			}
			shrunk = next
		}
		if what := op.said(s, shrunk); what != "" {
			gaveUp = append(gaveUp, what)
		}
		if buildPlan(in, shrunk, overhead).EstimateS <= in.Budget.Seconds() {
			break
		}
	}
	p = buildPlan(in, shrunk, overhead)
	p.OverheadFrom, p.BudgetS, p.GaveUp = from, in.Budget.Seconds(), gaveUp
	if p.EstimateS > in.Budget.Seconds() {
		return p, exitcode.With(fmt.Errorf("--budget %v is too small: the smallest plan (%s) takes %v: give at least %[3]v, or --skip steps",
			in.Budget, strings.Join(gaveUp, "; "), ceilMinute(p.EstimateS)), exitcode.Usage)
	}
	return p, nil
}

func checkPlanInput(in Input) error {
	var errs []error
	if len(in.Sides) != 2 || len(in.Labels) != 2 {
		errs = append(errs, errors.New("a QA compares two sides, the baseline and the candidate"))
	} else if (len(in.Sides[0].Hosts) > 0) != (len(in.Sides[1].Hosts) > 0) {
		local, hosts := in.Labels[0], in.Labels[1]
		if len(in.Sides[0].Hosts) > 0 {
			local, hosts = hosts, local
		}
		errs = append(errs, fmt.Errorf("the %s runs on [host.*] hosts and the %s on this machine: their figures would compare the machines, not the sides; "+
			"put both on the hosts (qa --inventory) or neither", hosts, local))
	}
	for _, id := range in.Skip {
		if !slices.Contains(Steps(), id) || id == LoadStep {
			errs = append(errs, fmt.Errorf("--skip %q: not a step (%s)", id, strings.Join(slices.DeleteFunc(Steps(), func(s string) bool { return s == LoadStep }), ", ")))
		}
	}
	if in.Repeat < 0 {
		errs = append(errs, fmt.Errorf("--repeat %d: want ≥ 1", in.Repeat))
	}
	for _, c := range in.Connections {
		if c < 1 {
			errs = append(errs, fmt.Errorf("grid connections %v: want ≥ 1 each", in.Connections))
		}
	}
	for _, f := range in.Factors {
		if !(f > 0) {
			errs = append(errs, fmt.Errorf("grid factors %v: want > 0 each", in.Factors))
		}
	}
	return errors.Join(errs...)
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// buildPlan is the plan of in with the settings s.
func buildPlan(in Input, s qaSettings, overhead time.Duration) results.QAPlan {
	cand := in.Sides[1]
	p := results.QAPlan{DurationS: cand.Load.Duration.Seconds(), LongDurationS: s.long.Seconds(), Repeat: s.repeat, ScenarioRepeat: s.scenario,
		Long: in.Long, Connections: s.conns, Factors: s.factors, SearchRuns: s.searchRuns, VoteExtensionSizes: s.veSizes,
		OverheadS: overhead.Seconds()}
	for _, id := range Steps() {
		st := results.QAPlanStep{ID: id, Title: Title(id)}
		switch {
		case slices.Contains(in.Skip, id):
			st.Skip = "skipped: --skip " + id
		case qaNotBuilt[id] != "":
			st.Skip, st.NotBuilt = qaNotBuilt[id], true
		default:
			st.Runs, st.Skip = planRuns(id, in, s)
		}
		if id == Storage && len(st.Runs) > 0 {
			p.StorageDurationS = s.storage.Seconds()
			for _, k := range storageKnobs(cand, s) {
				p.StorageParams = append(p.StorageParams, results.SweepParam{Key: k.Key, Values: k.Values})
			}
		}
		for _, r := range st.Runs {
			st.EstimateS += float64(r.Count) * (r.DurationS + overhead.Seconds())
		}
		p.EstimateS += st.EstimateS
		p.Steps = append(p.Steps, st)
	}
	if slices.Contains(in.Skip, Saturation) {
		p.PlanStep(LoadStep).Skip = "the manifest's load: the saturation step is skipped"
	}
	return p
}

// Title is a step's title in plans and reports.
func Title(id string) string {
	return map[string]string{Saturation: "Saturation point", LoadStep: "QA load", Long: "Long test at the QA load",
		Rotation: "Rotating nodes", VoteExtensions: "Vote-extension sizes", Partition: "Network partition",
		AbsentStake: "Absent stake", Upgrade: "Rolling upgrade", Storage: "Storage matrix"}[id]
}

// planRuns are the runs of step id, or why the sides cannot do it.
func planRuns(id string, in Input, s qaSettings) ([]results.QAPlanRun, string) {
	base, cand := in.Sides[0], in.Sides[1]
	both := func(what string, changes []string, rounds int, d time.Duration) ([]results.QAPlanRun, string) {
		for i, side := range in.Sides {
			if _, err := WithChanges(side, changes); err != nil {
				return nil, fmt.Sprintf("skipped: the %s cannot run it: %v", in.Labels[i], err)
			}
		}
		return []results.QAPlanRun{{Side: "both", What: what, Changes: changes, Count: 2 * rounds, DurationS: d.Seconds()}}, ""
	}
	d := cand.Load.Duration
	switch id {
	case Saturation:
		var runs []results.QAPlanRun
		for i, side := range in.Sides {
			sd := side.Load.Duration.Seconds()
			probe := saturation.DefaultSearch(side.Load.Rate, sd).ProbeDurationS
			full, probes := min(qaSearchTypical, s.searchRuns), 0
			if probe > 0 {
				probes = min(qaSearchProbes, full)
				runs = append(runs, results.QAPlanRun{Side: in.Labels[i], What: "saturation search, growth probes (c = 1)", Count: probes, DurationS: probe})
			}
			runs = append(runs, results.QAPlanRun{Side: in.Labels[i], What: "saturation search, full-length runs (c = 1)", Count: full - probes,
				MaxCount: s.searchRuns - probes, DurationS: sd},
				results.QAPlanRun{Side: in.Labels[i], What: fmt.Sprintf("grid c ∈ %v × r ∈ knee·%v", s.conns, factorsText(s.factors)),
					Count: len(s.conns) * len(s.factors), DurationS: sd})
		}
		return runs, ""
	case LoadStep:
		return nil, ""
	case Long:
		return both(fmt.Sprintf("at the QA load, %s, counterbalanced", roundsText(s.repeat)), []string{"load.duration=" + s.long.String()}, s.repeat, s.long)
	case Rotation:
		var ch []string
		if cand.Rotate == nil {
			ch = []string{"rotate.concurrency=2"}
		}
		return both(fmt.Sprintf("at the QA load with ephemeral nodes, %s", roundsText(s.scenario)), ch, s.scenario, d)
	case Partition:
		at, dur := (d / 3).Round(time.Second), max(time.Second, (d/3).Round(time.Second))
		return both(fmt.Sprintf("at the QA load, split by stake while the load runs, %s", roundsText(s.scenario)),
			[]string{"links=relay", "partition.split=50/50", "partition.at=" + at.String(), "partition.duration=" + dur.String()}, s.scenario, d)
	case AbsentStake:
		return both(fmt.Sprintf("at the QA load, %s never starts, %s", absentText(cand), roundsText(s.scenario)), []string{"absent=33%"}, s.scenario, d)
	case VoteExtensions:
		return voteExtensionRuns(in, s)
	case Storage:
		return storageRuns(in, s)
	case Upgrade:
		ch, why := upgradeChanges(base, cand)
		if why != "" {
			return nil, why
		}
		if _, err := WithChanges(base, ch); err != nil {
			return nil, fmt.Sprintf("skipped: the %s cannot run it: %v", in.Labels[0], err)
		}
		return []results.QAPlanRun{{Side: in.Labels[0], What: "at the QA load, every node restarted on the candidate's release in turn",
			Changes: ch, Count: 1, DurationS: base.Load.Duration.Seconds()}}, ""
	}
	return nil, "not built yet"
}

// voteExtensionRuns are the vote-extension sweep's runs: the candidate
// with CometBFT's e2e app at the QA load, one cell per extension size —
// or why the candidate cannot run it: a binary (the e2e app is built from
// a release), its own ABCI app, or a line whose e2e app has no
// vote_extension_size.
func voteExtensionRuns(in Input, s qaSettings) ([]results.QAPlanRun, string) {
	cand, label := in.Sides[1], in.Labels[1]
	switch {
	case cand.CometBFTVersion == "":
		return nil, "skipped: the e2e app is built from a release, and the " + label + " runs a cometbft binary"
	case cand.App != manifest.AppKVStore && cand.App != manifest.AppE2E:
		return nil, "skipped: the " + label + " runs its own ABCI app, not CometBFT's e2e app"
	case !slices.Contains(cometbft.E2EAppKeys(cand.CometBFTVersion), "vote_extension_size"):
		return nil, fmt.Sprintf("skipped: the e2e app of %s has no vote_extension_size (extensions of a chosen size)", cand.CometBFTVersion)
	}
	ch := []string{"app=e2e"}
	if _, err := WithChanges(cand, append(slices.Clone(ch), "app.vote_extension_size="+strconv.Itoa(slices.Max(s.veSizes)))); err != nil {
		return nil, fmt.Sprintf("skipped: the %s cannot run it: %v", label, err)
	}
	return []results.QAPlanRun{{Side: label, What: fmt.Sprintf("at the QA load with the e2e app, vote extensions of %v bytes (0: the app's own), %s each",
		s.veSizes, roundsText(s.scenario)), Changes: ch, Count: len(s.veSizes) * s.scenario, DurationS: cand.Load.Duration.Seconds()}}, ""
}

// upgradeChanges are the baseline's perturbations of a rolling upgrade
// to the candidate's release — every node of the testnet (but ephemeral
// and absent ones) restarted on it in turn, at equal intervals over the
// load — or why there is none: the sides are not two releases, or the
// release lines' facts refuse the upgrade (cometbft.CheckUpgrade: their
// stores differ, or their nodes cannot share a network).
func upgradeChanges(base, cand manifest.Resolved) ([]string, string) {
	from, to := base.CometBFTVersion, cand.CometBFTVersion
	switch {
	case from == "" || to == "":
		return nil, "skipped: a rolling upgrade goes from one release to another, and a side runs a cometbft binary"
	case from == to:
		return nil, fmt.Sprintf("skipped: both sides run %s: there is no release to upgrade to", from)
	case base.App == manifest.AppE2E:
		return nil, "skipped: with the e2e app a node runs the app node of its release, which an upgrade does not swap"
	}
	if err := cometbft.CheckUpgrade(from, to); err != nil {
		return nil, fmt.Sprintf("skipped: %v", err)
	}
	var nodes []string
	for _, n := range base.Nodes {
		if !n.Ephemeral && !n.Absent && n.Version == from {
			nodes = append(nodes, n.Name)
		}
	}
	var ch []string
	step := base.Load.Duration / time.Duration(len(nodes)+1)
	for i, n := range nodes {
		at := (step * time.Duration(i+1)).Round(time.Second)
		ch = append(ch, "perturb."+n+".action=upgrade", "perturb."+n+".to="+to, "perturb."+n+".at="+at.String())
	}
	return ch, ""
}

// factorsText writes the grid's factors as fractions where they are
// ({¼, ½, 1, 2}).
func factorsText(fs []float64) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		switch f {
		case 0.25:
			parts[i] = "¼"
		case 0.5:
			parts[i] = "½"
		default:
			parts[i] = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// roundsText is "1 round" or "N rounds".
func roundsText(n int) string {
	if n == 1 {
		return "1 round"
	}
	return strconv.Itoa(n) + " rounds"
}

// absentText says which stake absent = 33 % keeps out of cand's testnet:
// the whole validators whose power stays within a third (one of 4 equal
// validators: 25 %).
func absentText(cand manifest.Resolved) string {
	m, err := WithChanges(cand, []string{"absent=33%"})
	if err != nil {
		return "up to 33 % of the stake"
	}
	var total, absent int64
	n := 0
	for _, node := range m.Nodes {
		if node.Mode != manifest.ModeValidator {
			continue
		}
		total += node.Power
		if node.Absent {
			absent += node.Power
			n++
		}
	}
	if total == 0 {
		return "up to 33 % of the stake"
	}
	return fmt.Sprintf("%s of the stake (%d of %d validators: the most whole validators within 33 %%)",
		strconv.FormatFloat(100*float64(absent)/float64(total), 'f', -1, 64)+" %", n, len(validatorsOf(m)))
}

// validatorsOf are m's validators.
func validatorsOf(m manifest.Resolved) []manifest.Node {
	var vs []manifest.Node
	for _, n := range m.Nodes {
		if n.Mode == manifest.ModeValidator {
			vs = append(vs, n)
		}
	}
	return vs
}
