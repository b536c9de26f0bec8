package qa

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
)

// maxOverheadRuns bounds the run directories MeasureOverhead reads.
const maxOverheadRuns = 200

// MeasureOverhead reads the run.json of the run directories under roots
// (the newest maxOverheadRuns by modification time; a directory holding
// run.json is not descended into) and measures the overhead from those of
// testnets of nodes nodes (0: any) (plan.Overhead). It says where the figure
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
	overhead, n = plan.Overhead(runs)
	if n == 0 {
		return 0, 0, "", nil
	}
	return overhead, n, fmt.Sprintf("measured: the median of %d complete runs' run.json times under %s", n, strings.Join(roots, ", ")), nil
}
