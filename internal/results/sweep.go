package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Files of a sweep directory (sweep.json) and of a saturation-search
// directory (saturate.json). Each run of either is an ordinary run
// directory inside it.
const (
	SweepFile             = "sweep.json"    // the grid and every cell, rewritten atomically after each
	SweepReportFile       = "sweep.md"      // the sweep report
	SweepHTMLFile         = "sweep.html"    // the same, one self-contained page
	SaturateFile          = "saturate.json" // the search, its path and its outcome
	SaturateReportFile    = "saturate.md"   // the search report
	SaturateHTMLFile      = "saturate.html" // the same, one self-contained page
	CellsDir              = "cells"         // sweep: one run directory per cell and repeat
	StepsDir              = "steps"         // search: one run directory per step
	ManifestsDir          = "manifests"     // sweep: the resolved manifest of each cell
	LatencyThroughputPlot = "plots/latency_throughput.png"
)

// Statuses of a sweep cell or search step besides a run's own (complete,
// partial, failed once it has run, running while it runs).
const (
	StatusPending     = "pending"     // not started yet
	StatusInterrupted = "interrupted" // stopped by an interrupt; redone on resume
)

// Modes of running a sweep's cells or a search's steps.
const (
	ModeFresh = "fresh" // a fresh testnet per run: independent runs (the default)
	ModeReuse = "reuse" // one testnet for consecutive runs with the same testnet settings, drained and cooled down between them
)

// Finished reports whether a cell or step with this status is done: its
// run completed, ended partial (e.g. the mempools did not drain), or
// failed (recorded and skipped). Pending, running and interrupted ones are
// (re)done on resume.
func Finished(status string) bool {
	return status == StatusComplete || status == StatusPartial || status == StatusFailed
}

// TestnetInfo describes the testnet a sweep or search ran, for reports.
type TestnetInfo struct {
	Name            string `json:"name"`
	CometBFTVersion string `json:"cometbft_version"` // or "binary PATH"
	App             string `json:"app"`
	Validators      int    `json:"validators"`
	Nodes           int    `json:"nodes"`
	TxSize          int    `json:"tx_size"`
	Pacing          string `json:"pacing"`
}

// SweepParam is one swept setting besides c and r: a manifest key
// ("validators", "load.size", a config.toml path such as "mempool.size")
// and its values as given.
type SweepParam struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// SweepGrid is what a sweep varies.
type SweepGrid struct {
	Connections []int        `json:"connections"`
	Rates       []float64    `json:"rates"` // tx/s per connection
	Params      []SweepParam `json:"params,omitempty"`
	Repeat      int          `json:"repeat"`
	DurationS   float64      `json:"duration_s"`
}

// SweepCell is one cell and repeat of a sweep as sweep.json lists it: the
// fields every reader of a sweep directory relies on (package saturation
// adds the cell's evidence and verdict). ID is stable and readable
// ("c2-r400", "c1-r200-mempool.size_1000") and the same for every repeat,
// so that cells of two sweeps can be matched by it.
type SweepCell struct {
	ID     string            `json:"id"`
	Params map[string]string `json:"params"` // "c", "r" and every SweepParam key
	Repeat int               `json:"repeat"` // from 0
	Dir    string            `json:"dir"`    // the run directory, relative to the sweep directory
	Status string            `json:"status"`
	Error  string            `json:"error,omitempty"`
	// Disturbed says that the cell's first run was disturbed (its host
	// busy with other work) and what was done; nil when it was not.
	Disturbed *Disturbance `json:"disturbed,omitempty"`
	// Started and Ended bound the cell's wall time.
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

// IsSweepDir reports whether dir holds a sweep.json.
func IsSweepDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, SweepFile))
	return err == nil
}

// ReadSweepCells reads the cells of the sweep directory dir, with each
// cell's Dir joined to dir (an absolute Dir is kept). A cell without an id
// or a directory, or an id and repeat given twice, is an error.
func ReadSweepCells(dir string) ([]SweepCell, error) {
	var idx struct {
		Cells []SweepCell `json:"cells"`
	}
	path := filepath.Join(dir, SweepFile)
	if err := ReadJSON(path, &idx); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a sweep directory (no %s)", dir, SweepFile)
		}
		return nil, err
	}
	var errs []error
	type key struct {
		id     string
		repeat int
	}
	seen := map[key]bool{}
	for i := range idx.Cells {
		c := &idx.Cells[i]
		switch k := (key{c.ID, c.Repeat}); {
		case c.ID == "" || c.Dir == "":
			errs = append(errs, fmt.Errorf("%s: cell %d: want both an id and a dir", path, i))
			continue
		case seen[k]:
			errs = append(errs, fmt.Errorf("%s: cell %q repeat %d given twice", path, c.ID, c.Repeat))
		default:
			seen[k] = true
		}
		if !filepath.IsAbs(c.Dir) {
			c.Dir = filepath.Join(dir, filepath.FromSlash(c.Dir))
		}
	}
	if len(idx.Cells) == 0 {
		errs = append(errs, fmt.Errorf("%s: no cells", path))
	}
	return idx.Cells, errors.Join(errs...)
}

// Files of a comparison directory. A comparison of sweeps has one of each
// for its overview and one comparison directory per cell, CompareCellDir.
const (
	CompareMD   = "compare.md"
	CompareHTML = "compare.html"
	CompareJSON = "compare.json"
)

// CompareCellDir is the directory, relative to a sweep comparison's, of the
// comparison of the cell id: cells/<id> with every character but letters,
// digits, '.', '-' and '_' replaced by '_'.
func CompareCellDir(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return CellsDir + "/" + string(b)
}

// Disturbance is what a series (a sweep, a search, an A/B experiment) did
// about a run whose host was busy with other work during its load.
type Disturbance struct {
	Why    string `json:"why"` // how busy the host was (which runs, how much of its CPU)
	Action string `json:"action"`
}

// Actions on a disturbed run, as records state them.
const (
	// ActionRunAgain: the run was measured again; the disturbed one is
	// kept as evidence (DIR.disturbed, or a search's step marked
	// remeasured).
	ActionRunAgain = "run again"
	// ActionKept: the re-measure was disturbed too, and is kept.
	ActionKept = "kept: the host was busy again"
	// ActionKeptOver: the series had measured enough runs again (its
	// budget), so this one is kept.
	ActionKeptOver = "kept: the series measured enough runs again"
)
