package compare

import (
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// CellMatch is one cell id and its run directories (its repeats) on each
// side; a side whose sweep has no such cell has none.
type CellMatch struct {
	ID   string
	Dirs [][]string // baseline first
}

// MatchCells matches the cells of sweeps (baseline first) by id, the
// repeats of a cell together: the baseline's cells in its order, then the
// ids only candidates have.
func MatchCells(sides [][]results.SweepCell) []CellMatch {
	var ids []string
	dirs := map[string][][]string{}
	for i, cells := range sides {
		for _, c := range cells {
			if _, ok := dirs[c.ID]; !ok {
				ids = append(ids, c.ID)
				dirs[c.ID] = make([][]string, len(sides))
			}
			dirs[c.ID][i] = append(dirs[c.ID][i], c.Dir)
		}
	}
	out := make([]CellMatch, 0, len(ids))
	for _, id := range ids {
		out = append(out, CellMatch{ID: id, Dirs: dirs[id]})
	}
	return out
}

// Complete reports whether every side has the cell.
func (m CellMatch) Complete() bool {
	return !slices.ContainsFunc(m.Dirs, func(d []string) bool { return len(d) == 0 })
}
