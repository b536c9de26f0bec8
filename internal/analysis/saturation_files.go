package analysis

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/results"
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

// Statuses of a sweep cell or search step (a run's own statuses —
// complete, partial, failed — once it has run).
const (
	StatusPending     = "pending"     // not started yet
	StatusInterrupted = "interrupted" // stopped by an interrupt; redone on resume
)

// Modes of running cells or steps.
const (
	ModeFresh = "fresh" // a fresh testnet per run: independent runs (the default)
	ModeReuse = "reuse" // one testnet for consecutive runs with the same testnet settings, drained and cooled down between them
)

// Finished reports whether a cell or step with this status is done: its
// run completed, ended partial (e.g. the mempools did not drain), or
// failed (recorded and skipped). Pending, running and interrupted ones are
// (re)done on resume.
func Finished(status string) bool {
	return status == results.StatusComplete || status == results.StatusPartial || status == results.StatusFailed
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

// SweepRecord is sweep.json.
type SweepRecord struct {
	ID              string       `json:"id"`
	Kind            string       `json:"kind"`   // "sweep"
	Status          string       `json:"status"` // running, complete, partial (some cell failed), interrupted
	CometlabVersion string       `json:"cometlab_version"`
	Created         time.Time    `json:"created"`
	Updated         time.Time    `json:"updated"`
	Host            results.Host `json:"host"`
	Testnet         TestnetInfo  `json:"testnet"`
	Grid            SweepGrid    `json:"grid"`
	Mode            string       `json:"mode"` // ModeFresh or ModeReuse
	CoolDownS       float64      `json:"cool_down_s,omitempty"`
	Criterion       Criterion    `json:"criterion"`
	Cells           []SweepCell  `json:"cells"`
	// Figures are the sweep's results keyed by SaturationDictionary id
	// (saturation_diagonal_tps, saturated_tps), for the first group.
	Figures map[string]float64 `json:"figures,omitempty"`
}

// SweepCell is one cell and repeat of a sweep. ID is stable and readable
// ("c2-r400", "c1-r200-mempool.size_1000") and the same for every repeat,
// so that cells of two sweeps can be matched by it.
type SweepCell struct {
	ID     string            `json:"id"`
	Params map[string]string `json:"params"` // "c", "r" and every SweepParam key
	Repeat int               `json:"repeat"` // from 0
	Dir    string            `json:"dir"`    // the run directory, relative to the sweep directory
	Status string            `json:"status"`
	Error  string            `json:"error,omitempty"`
	// Started and Ended bound the cell's wall time.
	Started  time.Time `json:"started,omitzero"`
	Ended    time.Time `json:"ended,omitzero"`
	Evidence *Evidence `json:"evidence,omitempty"`
	Verdict  *Verdict  `json:"verdict,omitempty"`
}

// SaturateRecord is saturate.json.
type SaturateRecord struct {
	ID              string       `json:"id"`
	Kind            string       `json:"kind"`   // "saturate"
	Status          string       `json:"status"` // running, complete, interrupted
	CometlabVersion string       `json:"cometlab_version"`
	Created         time.Time    `json:"created"`
	Updated         time.Time    `json:"updated"`
	Host            results.Host `json:"host"`
	Testnet         TestnetInfo  `json:"testnet"`
	Connections     int          `json:"connections"`
	Mode            string       `json:"mode"`
	CoolDownS       float64      `json:"cool_down_s,omitempty"`
	Search          SearchConfig `json:"search"`
	Criterion       Criterion    `json:"criterion"`
	Steps           []SearchStep `json:"steps"`
	Outcome         *Outcome     `json:"outcome,omitempty"`
	// Figures are the search's results keyed by SaturationDictionary id
	// (saturation_tps, recommended_tps), in tx/s over all connections.
	Figures map[string]float64 `json:"figures,omitempty"`
}

// SearchStep is one run of a saturation search: the stepper's decision
// and what the run showed.
type SearchStep struct {
	N int `json:"n"` // from 1
	Step
	Dir      string    `json:"dir"`
	Status   string    `json:"status"`
	Error    string    `json:"error,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Ended    time.Time `json:"ended,omitzero"`
	Evidence *Evidence `json:"evidence,omitempty"`
	Verdict  *Verdict  `json:"verdict,omitempty"`
}

// Observations returns the stepper's view of the finished steps: a failed
// run counts as a failure at its rate.
func (r SaturateRecord) Observations() []Observation {
	var obs []Observation
	for _, s := range r.Steps {
		if !Finished(s.Status) {
			continue
		}
		o := Observation{Rate: s.Rate, DurationS: s.DurationS}
		if s.Verdict != nil {
			o.Pass = s.Verdict.Pass
		}
		if s.Evidence != nil && !o.Pass {
			o.Estimate = s.Evidence.Estimate()
		}
		if s.Verdict != nil && !o.Pass {
			o.Soft = SoftFailure(*s.Verdict)
		}
		obs = append(obs, o)
	}
	return obs
}

// SoftFailure reports whether a failing verdict failed only on the
// latency trend and rounds checks (see Observation.Soft).
func SoftFailure(v Verdict) bool {
	failed := v.Failed()
	for _, name := range failed {
		if name != CheckLatency && name != CheckRounds {
			return false
		}
	}
	return len(failed) > 0
}

// ReadSweep reads dir/sweep.json.
func ReadSweep(dir string) (SweepRecord, error) {
	var r SweepRecord
	err := results.ReadJSON(filepath.Join(dir, SweepFile), &r)
	return r, err
}

// ReadSaturate reads dir/saturate.json.
func ReadSaturate(dir string) (SaturateRecord, error) {
	var r SaturateRecord
	err := results.ReadJSON(filepath.Join(dir, SaturateFile), &r)
	return r, err
}

// GridCells returns the sweep's cells for SaturationTables: one per id,
// with the evidence and verdict of every finished repeat that has them.
// The group of a cell is its SweepParam values ("mempool.size=1000").
func (r SweepRecord) GridCells() []GridCell {
	var out []GridCell
	index := map[string]int{}
	for _, c := range r.Cells {
		i, ok := index[c.ID]
		if !ok {
			gc := GridCell{ID: c.ID, Group: r.group(c)}
			gc.Connections, gc.Rate = cellLoad(c)
			index[c.ID] = len(out)
			out = append(out, gc)
			i = len(out) - 1
		}
		if Finished(c.Status) && c.Evidence != nil && c.Verdict != nil {
			out[i].Runs = append(out[i].Runs, GridRun{Evidence: *c.Evidence, Verdict: *c.Verdict})
		}
	}
	return out
}

func (r SweepRecord) group(c SweepCell) string {
	g := ""
	for _, p := range r.Grid.Params {
		if g != "" {
			g += ", "
		}
		g += p.Key + "=" + c.Params[p.Key]
	}
	return g
}

// cellLoad parses a cell's "c" and "r" params (0 when malformed).
func cellLoad(c SweepCell) (int, float64) {
	conns, _ := strconv.Atoi(c.Params["c"])
	rate, _ := strconv.ParseFloat(c.Params["r"], 64)
	return conns, rate
}
