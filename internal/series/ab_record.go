package series

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/sequential"
)

// Files of an A/B experiment's directory, besides the comparison's.
const (
	ABFile    = "ab.json"    // the experiment's record
	NoiseFile = "noise.json" // an A/A calibration's noise
	abRunsDir = "runs"       // runs/NN-<side>: the run directories
)

// ABMethod is the method of --repeat auto, as ab.json and the report name it.
const ABMethod = "group-sequential paired t-test, O'Brien–Fleming-type alpha spending (Lan & DeMets 1983), TOST equivalence"

// ABRecord is ab.json: how the experiment was made, how far it got and
// what it decided. It is rewritten (atomically) when the experiment
// starts, before each run and after each round, so that a killed
// experiment leaves it readable and ResumeAB continues from it.
type ABRecord struct {
	Base       string                `json:"base"`
	Candidates []string              `json:"candidates"`
	Repeat     string                `json:"repeat"`
	MaxPairs   int                   `json:"max_pairs"`
	Order      string                `json:"order"`
	Seed       uint64                `json:"seed"`
	Method     string                `json:"method"`
	Alpha      float64               `json:"alpha"`
	Pairs      int                   `json:"pairs"`  // rounds done: Rounds[:Pairs] are whole
	Rounds     [][]string            `json:"rounds"` // run directories in the order they ran
	Sequential []sequential.Decision `json:"sequential,omitempty"`
	Verdict    compare.Verdict       `json:"verdict"`
	Partial    bool                  `json:"partial,omitempty"`
	// AA is set for an A/A calibration (--aa): Noise names its noise.json.
	AA    bool   `json:"aa,omitempty"`
	Noise string `json:"noise,omitempty"`
	// Stop, Judged (--judge) and FamilyWise are --repeat auto's rule.
	Stop       string   `json:"stop,omitempty"`
	Judged     []string `json:"metrics,omitempty"`
	FamilyWise bool     `json:"family_wise,omitempty"`
	// AllowTimeScaleMismatch: the sides may run at different time
	// scales, and are compared anyway (--allow-time-scale-mismatch).
	AllowTimeScaleMismatch bool `json:"allow_time_scale_mismatch,omitempty"`

	// What --resume needs (absent in the ab.json of older cometlabs, which
	// cannot be resumed). Status is running, complete, interrupted or
	// failed; Labels name the sides, base first, each with its resolved
	// manifest in manifests/<label>.toml.
	Status     string              `json:"status,omitempty"`
	Labels     []string            `json:"labels,omitempty"`
	Thresholds *compare.Thresholds `json:"thresholds,omitempty"`
	// MaxTimeS is --max-time; ElapsedS the time the rounds took so far.
	MaxTimeS float64 `json:"max_time_s,omitempty"`
	ElapsedS float64 `json:"elapsed_s,omitempty"`
	// Command is the command line that started the experiment.
	Command string `json:"command,omitempty"`
	// Disturbed lists the rounds whose host was busy with other work
	// (a run's evidence Disturbed), and what was done: run again once
	// (the first runs kept as DIR.disturbed), or kept when the host was
	// busy again.
	Disturbed []ABDisturbance `json:"disturbed,omitempty"`
}

// ABDisturbance is a round run while the host was busy with other work,
// and what was done (series' policy).
type ABDisturbance struct {
	Round int `json:"round"` // from 1
	results.Disturbance
}

// Auto says whether the experiment adds rounds until its metrics are
// decided (--repeat auto).
func (r ABRecord) Auto() bool { return r.Repeat == "auto" }

// PlannedRounds is the most rounds the experiment runs: --repeat N, or
// --max-pairs for auto.
func (r ABRecord) PlannedRounds() (int, error) {
	if r.Auto() {
		return r.MaxPairs, nil
	}
	n, err := strconv.Atoi(r.Repeat)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("repeat %q: want a number ≥ 1 or auto", r.Repeat)
	}
	return n, nil
}

// ReadAB reads the ab.json of the experiment directory dir, whichever
// cometlab wrote it.
func ReadAB(dir string) (ABRecord, error) {
	var rec ABRecord
	err := results.ReadJSON(filepath.Join(dir, ABFile), &rec)
	return rec, err
}

// saveAB rewrites dir/ab.json atomically.
func saveAB(dir string, rec *ABRecord) error {
	return results.WriteJSON(filepath.Join(dir, ABFile), rec)
}

// abRunDir is the run directory of a side in a round (0-based):
// DIR/runs/NN-<label>.
func abRunDir(dir string, round int, label string) string {
	return filepath.Join(dir, abRunsDir, fmt.Sprintf("%02d-%s", round+1, label))
}

// sideDirs returns, per side (in the order of labels), the run
// directories of the rounds done, under dir: a recorded directory is
// found by its name (NN-<label>), so that an experiment moved or resumed
// from another working directory still finds its runs.
func (r ABRecord) sideDirs(dir string) ([][]string, error) {
	dirs := make([][]string, len(r.Labels))
	for round := range min(r.Pairs, len(r.Rounds)) {
		for _, d := range r.Rounds[round] {
			label := abLabel(d)
			i := slices.Index(r.Labels, label)
			if i < 0 {
				return nil, fmt.Errorf("round %d: run %s is of no side (%v)", round+1, d, r.Labels)
			}
			dirs[i] = append(dirs[i], abRunDir(dir, round, label))
		}
	}
	for i, ds := range dirs {
		if len(ds) != r.Pairs {
			return nil, fmt.Errorf("side %s: %d runs in %d rounds done", r.Labels[i], len(ds), r.Pairs)
		}
	}
	return dirs, nil
}

// abLabel is the side of a run directory DIR/runs/NN-<label>.
func abLabel(runDir string) string {
	_, label, _ := strings.Cut(filepath.Base(runDir), "-")
	return label
}
