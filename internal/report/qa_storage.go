package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/stats"
)

// QAStorageRow is one cell of the storage matrix: its settings and its
// storage figures, each the mean over its finished runs (NaN unknown).
type QAStorageRow struct {
	// Settings are the cell's swept settings, "key=value", in the sweep's
	// order of its parameters.
	Settings []string
	Runs     int
	Dir      string // the first run's, relative to the sweep directory
	// Heights is the chain's last height, DataEndMiB the largest data
	// directory at the end, GrowthMiB its growth over the run and
	// PerHourMiB its growth per hour (data_dir_growth_mib_per_h).
	Heights, DataEndMiB, GrowthMiB, PerHourMiB float64
	// DurationS is the runs' load duration: PerHourMiB is measured when
	// it is an hour or more, else extrapolated from it.
	DurationS float64
}

// Measured reports whether the row's growth per hour was measured over
// an hour or more (else it is extrapolated from a shorter run).
func (r QAStorageRow) Measured() bool { return r.DurationS >= 3600 }

// Basis says how the row's growth per hour was found: "measured over
// 1 h" or "extrapolated from 90 s".
func (r QAStorageRow) Basis() string {
	if r.Runs == 0 {
		return "not run yet"
	}
	if r.Measured() {
		return "measured over " + fmtS(r.DurationS)
	}
	return "extrapolated from " + fmtS(r.DurationS)
}

// QAStorageRows reads the storage matrix's sweep in dir (record rec):
// a row per finished cell, in the sweep's order.
func QAStorageRows(dir string, rec saturation.SweepRecord) []QAStorageRow {
	var rows []QAStorageRow
	for _, c := range sweepCellRuns(dir, rec) {
		r := QAStorageRow{Runs: len(c.summaries), Dir: c.dirs[0]}
		for _, p := range rec.Grid.Params {
			r.Settings = append(r.Settings, p.Key+"="+c.params[p.Key])
		}
		mean := func(f func(*analysis.Summary, int) float64) float64 {
			var vs []float64
			for i, s := range c.summaries {
				if v := f(s, i); !math.IsNaN(v) {
					vs = append(vs, v)
				}
			}
			if len(vs) == 0 {
				return math.NaN()
			}
			return stats.Mean(vs)
		}
		metric := func(id string) func(*analysis.Summary, int) float64 {
			return func(s *analysis.Summary, _ int) float64 {
				if v, ok := s.Metrics[id]; ok {
					return v
				}
				return math.NaN()
			}
		}
		r.Heights = mean(func(_ *analysis.Summary, i int) float64 { return float64(c.runs[i].LastHeight) })
		r.DataEndMiB, r.GrowthMiB = mean(metric("data_dir_end_mib")), mean(metric("data_dir_growth_mib"))
		r.PerHourMiB = mean(metric("data_dir_growth_mib_per_h"))
		r.DurationS = mean(func(_ *analysis.Summary, i int) float64 { return c.runs[i].Load.DurationS })
		rows = append(rows, r)
	}
	return rows
}

// Unpruned says, for a cell that prunes (app.retain_blocks > 0) whose
// chain never passed that many heights, that it cannot have pruned
// ("never pruned: 6 heights ≤ retain_blocks 10"); "" otherwise.
func (r QAStorageRow) Unpruned() string {
	for _, s := range r.Settings {
		k, v, _ := strings.Cut(s, "=")
		if k != "app.retain_blocks" {
			continue
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 && r.Runs > 0 && r.Heights <= n {
			return fmt.Sprintf("never pruned: %s heights ≤ retain_blocks %s", groupDigits(r.Heights), v)
		}
	}
	return ""
}

// QAStorageSummary is the storage matrix in a phrase: each cell's
// growth per hour and how it was found.
func QAStorageSummary(rows []QAStorageRow) string {
	var parts []string
	for _, r := range rows {
		basis := r.Basis()
		if u := r.Unpruned(); u != "" {
			basis += "; " + u
		}
		parts = append(parts, fmt.Sprintf("%s: %s MiB/h (%s)", shortSettings(r.Settings), fmtMiB(r.PerHourMiB), basis))
	}
	if len(parts) == 0 {
		return "no cell finished"
	}
	return "storage growth per hour by cell: " + strings.Join(parts, "; ")
}

// shortSettings are settings without their key's section ("compact=true").
func shortSettings(settings []string) string {
	out := make([]string, len(settings))
	for i, s := range settings {
		k, v, _ := strings.Cut(s, "=")
		out[i] = k[strings.LastIndex(k, ".")+1:] + "=" + v
	}
	return strings.Join(out, ", ")
}

func fmtMiB(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// qaStorage is the storage matrix's table: a row per cell with its
// settings, the chain's height, the data directory at the end, its growth
// in the run and per hour, and whether that hour was measured or
// extrapolated.
func (m mdWriter) qaStorage(dir string, rec saturation.SweepRecord) {
	rows := QAStorageRows(dir, rec)
	if len(rows) == 0 {
		m.f("No cell has finished yet.\n\n")
		return
	}
	var head []string
	align := ""
	for _, p := range rec.Grid.Params {
		head = append(head, p.Key)
		align += "l"
	}
	head = append(head, "runs", "height", "data dir at end (MiB)", "growth in the run (MiB)", "growth per hour (MiB/h)", "per hour")
	align += "rrrrrl"
	var out [][]string
	for _, r := range rows {
		var row []string
		for _, s := range r.Settings {
			_, v, _ := strings.Cut(s, "=")
			row = append(row, v)
		}
		basis := r.Basis()
		if u := r.Unpruned(); u != "" {
			basis += "; **" + u + "**"
		}
		row = append(row, strconv.Itoa(r.Runs), groupDigits(r.Heights), fmtMiB(r.DataEndMiB), fmtMiB(r.GrowthMiB), fmtMiB(r.PerHourMiB), basis)
		out = append(out, row)
	}
	m.f("The data directory of the largest node; growth per hour is the slope of its size over the load " +
		"(`data_dir_growth_mib_per_h`): measured when the runs last an hour (`--long`), else extrapolated from the run and said so.\n\n")
	m.table(head, align, out)
}
