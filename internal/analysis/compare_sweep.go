package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// SweepIndexFile is the file that makes a directory a sweep: sweep.json,
// with a "cells" array of {"id", "dir", "repeat", "status", …}, dir
// relative to the sweep directory; the repeats of a cell share its id.
// Comparisons read only those fields.
const SweepIndexFile = "sweep.json"

// CellRef is one cell (one repeat of it) of a sweep as sweep.json lists it.
type CellRef struct {
	ID     string `json:"id"`
	Dir    string `json:"dir"` // the run directory; LoadCellRefs makes it a path
	Repeat int    `json:"repeat"`
	Status string `json:"status,omitempty"`
}

// IsSweepDir reports whether dir holds a sweep.json.
func IsSweepDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, SweepIndexFile))
	return err == nil
}

// LoadCellRefs reads the cells of the sweep directory dir, with each
// cell's Dir joined to dir (an absolute Dir is kept). A cell without an id
// or a directory, or an id and repeat given twice, is an error.
func LoadCellRefs(dir string) ([]CellRef, error) {
	var idx struct {
		Cells []CellRef `json:"cells"`
	}
	path := filepath.Join(dir, SweepIndexFile)
	if err := results.ReadJSON(path, &idx); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a sweep directory (no %s)", dir, SweepIndexFile)
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

// CellMatch is one cell id and its run directories (its repeats) on each
// side; a side whose sweep has no such cell has none.
type CellMatch struct {
	ID   string
	Dirs [][]string // baseline first
}

// MatchCells matches the cells of sweeps (baseline first) by id, the
// repeats of a cell together: the baseline's cells in its order, then the
// ids only candidates have.
func MatchCells(sides [][]CellRef) []CellMatch {
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
