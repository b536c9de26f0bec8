package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/series"
)

type qaFlags struct {
	candidate, baseline string
	plan                bool
	budget              time.Duration
	resume              string
	skip                []string
	repeat              int
	threshold           string
	out                 string
	long                bool
	inventory           string
	sshUser             string
}

// qaOverheadRoots are where qa looks for finished runs to measure a run's
// overhead from: the default directories of run, ab, sweep, saturate and
// qa under the working directory.
var qaOverheadRoots = []string{"runs", "qa", "ab", "sweeps", "saturations"}

// qaLong is qa's --help text.
const qaLong = `Run CometBFT's QA method on a candidate against a baseline, as one command,
and write one report in the published reports' order.

The steps, in order (their ids for --skip):
  saturation       each side's saturation search (one connection) finds its knee,
                   then the c × r grid brackets it: c ∈ {1, 2, 4}, r = knee × {¼, ½, 1, 2}
                   (the method's {200, 400, 800, 1600} scaled to this testnet)
  (QA load)        c = 1 and the highest r of the candidate's c = 1 row that kept
                   up, at most the search's recommended load: the method's rule
  long             both sides at the QA load, interleaved and repeated as 'ab'
                   (counterbalanced, --repeat rounds; an hour each with --long)
  rotation         both sides with rotating ephemeral nodes
  vote-extensions  the candidate with CometBFT's e2e app, a sweep of vote-extension
                   sizes {0, 2048, 8192, 32768} bytes (where its line has them)
  partition        both sides split 50/50 by stake while the load runs
  absent-stake     both sides with at most a third of the stake never started
                   (absent=33 %: the most whole validators within it; 1 of 4,
                   25 %, on the default testnet; the plan says which)
  upgrade          the baseline with every node restarted on the candidate's
                   release in turn, where the release lines allow it
  storage          the candidate with CometBFT's e2e app, one run per combination
                   of the storage knobs its line has: pruning (retain_blocks 0|10)
                   on every line; forced compaction, key layout v1|v2 and
                   pebbledb|goleveldb on v1.0 and later; each cell's storage
                   growth per hour, extrapolated from the run (measured with --long)

A SPEC is what 'ab' takes: a CometBFT version (v0.40.0), the path of a
cometbft binary, the directory of a CometBFT checkout, a manifest file
(*.toml), or key=value overrides on the manifest
('consensus.timeout_commit=2s'). --baseline defaults to the
manifest as given. The testnet, load and collection flags apply to both
sides, as in 'ab'.

Each compared figure gets a verdict by the method's rule beside the
statistics of the repeats: "regression" when it is worse by --threshold or
more AND significant over the repeats (alpha 0.05, Holm-corrected);
"worse, within 10 %" when significant but smaller; "beyond 10 %, not
significant" when large but not shown by the repeats; else pass, better
or not judged.

--plan prints every run the QA will make and its estimated time (the
runs' durations plus a start-up and drain overhead measured from the
run.json of finished runs under runs/, qa/, ab/, sweeps/ and saturations/,
or a default of 20 s when none is there), and exits. --budget shrinks the
plan in a fixed order (fewer rounds of rotation, vote extensions,
partition and absent stake; fewer extension sizes; a smaller grid; a
shorter --long test; fewer long-test rounds) and
says what it gave up; a budget below the smallest plan is refused with
the budget that would do. A step the sides cannot do is skipped with the
reason, never silently.

Everything goes to one directory (--out, default qa/<UTC time>/): qa.json,
qa.md, qa.html, and under tests/ each step's searches, sweeps, A/B
experiments and runs, every run an ordinary run directory. A killed QA
continues with --resume DIR: finished steps are kept, and the step it
stopped in resumes its own series. A step that fails is recorded and the
others go on.

Every run starts on a fresh testnet: a local one, or, when the manifest
puts its nodes on [host.*] hosts or --inventory puts them on an Ansible
inventory's hosts (as 'deploy --inventory' does), one deployed on the hosts
for that run alone (deploy.yml, the load as 'load --testnet' sends it, from
the [load] hosts when there are any, then down.yml, which fetches the
hosts' logs and homes into the run's collected/). On hosts the saturation
step, the long test and the vote-extension sweep run; rotation, partition,
absent stake and the rolling upgrade are refused by hosts, and the storage
matrix walks data directories on this machine: each is skipped with its
reason. Both sides run on the hosts, or neither.

Exit codes: 0 every test passed; 4 a test found a regression; 5 a run
broke safety (before any other verdict); 3 a step failed; 2 bad flags or
a budget too small; 130 interrupted (resume with --resume).`

func newQACmd(st *state) *cobra.Command {
	var (
		tf testnetFlags
		lf loadFlags
		cf collectFlags
		f  qaFlags
	)
	cmd := &cobra.Command{
		Use:   "qa",
		Short: "Run a release's QA: saturation, QA load, tests against a baseline, one report with a pass/fail table",
		Long:  qaLong,
		Example: `  cometlab qa --baseline v0.38.26 --candidate v0.40.0 --plan
  cometlab qa --baseline v0.38.26 --candidate v0.40.0 --budget 2h
  cometlab qa --candidate 'consensus.timeout_commit=2s' -T 30s --repeat 2 --skip rotation
  cometlab qa --baseline base.toml --candidate cand.toml --long --out qa/v0.40
  cometlab qa --resume qa/20261120-090000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runQA(st, cmd, &tf, &lf, &cf, f) },
	}
	tf.register(cmd.Flags())
	tf.registerPerturb(cmd.Flags())
	tf.registerHosts(cmd.Flags())
	lf.register(cmd.Flags())
	cf.register(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVar(&f.candidate, "candidate", "", "candidate SPEC: a version, a cometbft binary, a CometBFT checkout, a manifest file or key=value overrides (required)")
	fs.StringVar(&f.baseline, "baseline", "", "baseline SPEC (default: the manifest as given)")
	fs.BoolVar(&f.plan, "plan", false, "print every run of the QA and its estimated time, then exit")
	fs.DurationVar(&f.budget, "budget", 0, "most time the QA may take (2h, 90m): the plan shrinks to fit and says what it gave up (0: no budget)")
	fs.StringVar(&f.resume, "resume", "", "continue the QA in this directory (other flags but --verbose and the collection flags are taken from it)")
	fs.StringSliceVar(&f.skip, "skip", nil, "steps not to run, comma-separated: "+strings.Join(qaSkippable(), ", "))
	fs.IntVar(&f.repeat, "repeat", plan.DefaultRepeat, "rounds of the long test (and of rotation, each vote-extension size, partition and absent stake, unless the budget takes some)")
	fs.StringVar(&f.threshold, "threshold", "10%", "a figure worse by this much or more (and significant) is a regression")
	fs.StringVar(&f.out, "out", "", "QA directory (default qa/<UTC time>)")
	fs.BoolVar(&f.long, "long", false, "make the long test an hour per run")
	fs.StringVar(&f.inventory, "inventory", "", "Ansible inventory, INI (qa-infra's) or YAML, putting each node of both sides on the host whose name is the node's, as 'deploy --inventory' does: every run deploys its testnet there")
	fs.StringVar(&f.sshUser, "ssh-user", "", "with --inventory: the ssh user of hosts without ansible_user (their own or their groups')")
	return cmd
}

// qaSkippable are the step ids --skip takes.
func qaSkippable() []string {
	var ids []string
	for _, id := range plan.Steps() {
		if id != plan.LoadStep {
			ids = append(ids, id)
		}
	}
	return ids
}

// parseThreshold reads --threshold: a percentage, "10%" or "10".
func parseThreshold(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || v < 0 || v > 1e6 {
		return 0, exitcode.With(fmt.Errorf("--threshold %q: want a percentage such as 10%%", s), exitcode.Usage)
	}
	return v, nil
}

func runQA(st *state, cmd *cobra.Command, tf *testnetFlags, lf *loadFlags, cf *collectFlags, f qaFlags) error {
	if f.resume != "" {
		if err := resumeConflicts(cmd.Flags()); err != nil {
			return err
		}
		env, err := st.cellEnv(tf, cf)
		if err != nil {
			return err
		}
		res, err := qa.Resume(cmd.Context(), f.resume, env)
		return qaResult(st, res, err)
	}
	if f.candidate == "" {
		return exitcode.With(errors.New("--candidate: give the candidate SPEC (or --resume DIR)"), exitcode.Usage)
	}
	th := compare.DefaultThresholds()
	var err error
	if th.DefaultPct, err = parseThreshold(f.threshold); err != nil {
		return err
	}
	src, err := manifestSource(tf, cmd.Flags(), lf)
	if err != nil {
		return err
	}
	var place series.Place
	var notes []string
	if f.inventory != "" {
		place = func(m manifest.Manifest) (manifest.Manifest, error) {
			placed, ns, err := experiment.PlaceOnInventory(m, f.inventory, f.sshUser)
			for _, n := range ns {
				if !slices.Contains(notes, n) {
					notes = append(notes, n)
				}
			}
			return placed, err
		}
	}
	sides, labels, err := series.ABSides(src, f.baseline, []string{f.candidate}, false, place)
	for _, n := range notes {
		fmt.Fprintf(st.stderr, "note: %s\n", n)
	}
	if err != nil {
		return sideFlags(err, "--baseline", "--candidate")
	}
	printWarnings(st.stderr, sides[0])
	overhead, _, from, err := qa.MeasureOverhead(len(sides[1].Nodes), qaOverheadRoots...)
	if err != nil {
		fmt.Fprintf(st.stderr, "cometlab: warning: measuring the run overhead: %v\n", err)
	}
	pl, err := plan.Make(plan.Input{Sides: sides, Labels: labels, Skip: f.skip, Repeat: f.repeat, Long: f.long,
		Budget: f.budget, Overhead: overhead, OverheadFrom: from})
	if err != nil {
		return err
	}
	fmt.Fprintf(st.stdout, "QA plan: %s against %s, regression threshold %s %%.\n", labels[1], labels[0], strconv.FormatFloat(th.DefaultPct, 'f', -1, 64))
	report.QAPlanText(st.stdout, pl)
	if f.plan {
		return nil
	}
	env, err := st.cellEnv(tf, cf)
	if err != nil {
		return err
	}
	res, err := qa.Run(cmd.Context(), qa.Options{Sides: sides, Labels: labels, Baseline: f.baseline, Candidate: f.candidate,
		Plan: pl, Thresholds: th, Dir: f.out, Command: commandLine(nil, cmd), Env: env})
	return qaResult(st, res, err)
}

// qaResult prints the pass/fail table of a finished QA and returns its
// error, which carries its exit code.
func qaResult(st *state, res qa.Result, err error) error {
	remember(st, res.Dir)
	if !res.Finished {
		return err
	}
	rec := res.Record
	fmt.Fprintf(st.stdout, "\nQA %s against %s: %s\n", rec.Labels[1], rec.Labels[0], strings.ToUpper(orNone(rec.Verdict, rec.Status)))
	for _, s := range rec.Steps {
		verdict := orNone(s.Verdict, s.Status)
		what := s.Summary
		if s.Error != "" {
			what = s.Error
		}
		fmt.Fprintf(st.stdout, "  %-16s %-12s %s\n", s.ID, verdict, what)
	}
	fmt.Fprintf(st.stdout, "report %s\n", filepath.Join(res.Dir, results.QAReportFile))
	return err
}

func orNone(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
