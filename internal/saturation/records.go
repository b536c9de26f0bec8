package saturation

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// SweepRecord is sweep.json.
type SweepRecord struct {
	ID              string              `json:"id"`
	Kind            string              `json:"kind"`   // "sweep"
	Status          string              `json:"status"` // running, complete, partial (some cell failed), interrupted
	CometlabVersion string              `json:"cometlab_version"`
	Created         time.Time           `json:"created"`
	Updated         time.Time           `json:"updated"`
	Host            results.Host        `json:"host"`
	Testnet         results.TestnetInfo `json:"testnet"`
	Grid            results.SweepGrid   `json:"grid"`
	Mode            string              `json:"mode"` // ModeFresh or ModeReuse
	CoolDownS       float64             `json:"cool_down_s,omitempty"`
	Criterion       Criterion           `json:"criterion"`
	Cells           []SweepCell         `json:"cells"`
	// Figures are the sweep's results keyed by Dictionary id
	// (saturation_diagonal_tps, saturated_tps), for the first group.
	Figures map[string]float64 `json:"figures,omitempty"`
}

// SweepCell is one cell and repeat of a sweep, with what its run showed
// against the criterion once it finished.
type SweepCell struct {
	results.SweepCell
	Evidence *Evidence `json:"evidence,omitempty"`
	Verdict  *Verdict  `json:"verdict,omitempty"`
}

// SearchRecord is saturate.json.
type SearchRecord struct {
	ID              string              `json:"id"`
	Kind            string              `json:"kind"`   // "saturate"
	Status          string              `json:"status"` // running, complete, interrupted
	CometlabVersion string              `json:"cometlab_version"`
	Created         time.Time           `json:"created"`
	Updated         time.Time           `json:"updated"`
	Host            results.Host        `json:"host"`
	Testnet         results.TestnetInfo `json:"testnet"`
	Connections     int                 `json:"connections"`
	Mode            string              `json:"mode"`
	CoolDownS       float64             `json:"cool_down_s,omitempty"`
	Search          SearchConfig        `json:"search"`
	Criterion       Criterion           `json:"criterion"`
	Steps           []SearchStep        `json:"steps"`
	Outcome         *Outcome            `json:"outcome,omitempty"`
	// Figures are the search's results keyed by Dictionary id
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
	// Remeasured marks a full-length step whose host was busy with other
	// work (Evidence.Disturbed): it was run again at the same rate in the
	// next step, which the search takes instead.
	Remeasured bool `json:"remeasured,omitempty"`
}

// Observations returns the stepper's view of the finished steps: a failed
// run counts as a failure at its rate.
func (r SearchRecord) Observations() []Observation {
	var obs []Observation
	for _, s := range r.Steps {
		if !results.Finished(s.Status) || s.Remeasured {
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
	err := results.ReadJSON(filepath.Join(dir, results.SweepFile), &r)
	return r, err
}

// ReadSearch reads dir/saturate.json.
func ReadSearch(dir string) (SearchRecord, error) {
	var r SearchRecord
	err := results.ReadJSON(filepath.Join(dir, results.SaturateFile), &r)
	return r, err
}

// GridCells returns the sweep's cells for Tables: one per id,
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
		if results.Finished(c.Status) && c.Evidence != nil && c.Verdict != nil {
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

// Dirs are the run directories of the search's steps, relative to its
// directory.
func (r SearchRecord) Dirs() []string {
	var dirs []string
	for _, s := range r.Steps {
		dirs = append(dirs, s.Dir)
	}
	return dirs
}

// Dirs are the run directories of the sweep's cells, relative to its
// directory.
func (r SweepRecord) Dirs() []string {
	var dirs []string
	for _, c := range r.Cells {
		dirs = append(dirs, c.Dir)
	}
	return dirs
}
