package experiment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// maxOverheadRuns bounds the run directories MeasureOverhead reads.
const maxOverheadRuns = 200

// QAOverhead is the time a run takes besides its load, measured from
// what run.json records of finished runs: the median over the complete
// runs of (ended − started) − (load end − load start) — the testnet's
// start-up, the drain, the read-back and the stop. n is the runs it is
// measured from (0: none had all four times; the overhead is then 0).
func QAOverhead(runs []results.Run) (overhead time.Duration, n int) {
	var xs []float64
	for _, r := range runs {
		if r.Status != results.StatusComplete || r.Started.IsZero() || r.LoadStart.IsZero() || r.LoadEnd.IsZero() || r.Ended.IsZero() {
			continue
		}
		o := r.Ended.Sub(r.Started) - r.LoadEnd.Sub(r.LoadStart)
		if o > 0 {
			xs = append(xs, o.Seconds())
		}
	}
	if len(xs) == 0 {
		return 0, 0
	}
	slices.Sort(xs)
	return results.Seconds(stats.Percentile(xs, 50)).Round(time.Second), len(xs)
}

// MeasureOverhead reads the run.json of the run directories under roots
// (the newest maxOverheadRuns by modification time; a directory holding
// run.json is not descended into) and measures the overhead from those of
// testnets of nodes nodes (0: any) (QAOverhead). It says where the figure
// comes from; n is 0 when no run measured it, and a root that does not
// exist is no error.
func MeasureOverhead(nodes int, roots ...string) (overhead time.Duration, n int, from string, err error) {
	type found struct {
		path string
		mod  time.Time
	}
	var all []found
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
					return fs.SkipDir
				}
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if d.Name() == results.NodesDir || d.Name() == results.LogsDir || d.Name() == results.PlotsDir {
				return fs.SkipDir
			}
			info, err := os.Stat(filepath.Join(p, results.RunFile))
			if err != nil {
				return nil
			}
			all = append(all, found{p, info.ModTime()})
			return fs.SkipDir
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, 0, "", err
		}
	}
	slices.SortFunc(all, func(a, b found) int { return b.mod.Compare(a.mod) })
	var runs []results.Run
	for _, f := range all[:min(len(all), maxOverheadRuns)] {
		var r results.Run
		if results.ReadJSON(filepath.Join(f.path, results.RunFile), &r) == nil && (nodes == 0 || len(r.Nodes) == nodes) {
			runs = append(runs, r)
		}
	}
	overhead, n = QAOverhead(runs)
	if n == 0 {
		return 0, 0, "", nil
	}
	return overhead, n, fmt.Sprintf("measured: the median of %d complete runs' run.json times under %s", n, strings.Join(roots, ", ")), nil
}
