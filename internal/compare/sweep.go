package compare

import (
	"errors"
	"fmt"
	"path/filepath"
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

// CellResult is one cell of a sweep comparison.
type CellResult struct {
	ID string `json:"id"`
	// Dir is the cell's comparison directory relative to the sweep
	// comparison's (results.CompareCellDir); "" when the cell was not
	// compared.
	Dir string `json:"dir,omitempty"`
	// Missing names the sides (labels) whose sweep has no such cell.
	Missing []string `json:"missing,omitempty"`
	// Problems are runs of the cell that could not be read (a failed
	// cell), skipped.
	Problems   []string   `json:"problems,omitempty"`
	Result     *Result    `json:"-"`
	Verdict    Verdict    `json:"verdict,omitempty"`
	Candidates []SideInfo `json:"candidates,omitempty"`
}

// SweepResult is a comparison of sweeps, cell by cell; its compare.json.
type SweepResult struct {
	Baseline   string       `json:"baseline"`
	Candidates []string     `json:"candidates"`
	Verdict    Verdict      `json:"verdict"`
	Cells      []CellResult `json:"cells"`
}

// Conclude sets each compared cell's verdict and candidates from its
// Result, and the sweep's verdict: worse when any cell's is, else better
// when any cell's is, else noise unknown when any cell's is, else no change.
func (s *SweepResult) Conclude() {
	s.Verdict = NoChange
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.Result == nil {
			continue
		}
		c.Verdict, c.Candidates = c.Result.Verdict, c.Result.Candidates
		switch {
		case c.Verdict == Worse:
			s.Verdict = Worse
		case c.Verdict == Better && s.Verdict != Worse:
			s.Verdict = Better
		case c.Verdict == NoiseUnknown && s.Verdict == NoChange:
			s.Verdict = NoiseUnknown
		}
	}
}

// Sweeps compares sweep directories (each side's first Dirs, baseline
// first) cell by cell: the
// cells are matched by id (MatchCells) and the repeats of a cell on each
// side are compared as runs are by Sides. A cell's unreadable runs (a
// failed cell) are skipped and listed in its Problems; a cell that some
// side lacks, or in which a side is left without a readable run, is listed
// but not compared. Each compared cell's result is handed to emit with its
// sides as soon as it is made (to write its report while its runs are in
// memory); an error of emit ends the comparison. Errors in the inputs are
// InputErrors.
func Sweeps(sides []SideDirs, opts Options, load LoadOptions, emit func(cell CellResult, sides []Side) error) (SweepResult, error) {
	var refs [][]results.SweepCell
	var errs []error
	labels := make([]string, len(sides))
	for i, s := range sides {
		r, err := results.ReadSweepCells(s.Dirs[0])
		if err != nil {
			errs = append(errs, err)
		}
		refs = append(refs, r)
		labels[i] = s.Label
		if labels[i] == "" {
			labels[i] = filepath.Base(filepath.Clean(s.Dirs[0]))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return SweepResult{}, InputError{fmt.Errorf("unusable input: %w", err)}
	}
	sr := SweepResult{Baseline: labels[0], Candidates: labels[1:]}
	compared := 0
	for _, m := range MatchCells(refs) {
		cell, cs, err := sweepCell(m, labels, opts, load)
		if err != nil {
			return sr, err
		}
		if cell.Result != nil {
			if err := emit(cell, cs); err != nil {
				return sr, err
			}
			compared++
		}
		sr.Cells = append(sr.Cells, cell)
	}
	if compared == 0 {
		return sr, InputError{errors.New("unusable input: the sweeps have no cell in common with a readable run on every side")}
	}
	sr.Conclude()
	return sr, nil
}

// sweepCell compares one matched cell; its Result is nil when it could
// not be compared.
func sweepCell(m CellMatch, labels []string, opts Options, load LoadOptions) (CellResult, []Side, error) {
	cell := CellResult{ID: m.ID}
	for i, d := range m.Dirs {
		if len(d) == 0 {
			cell.Missing = append(cell.Missing, labels[i])
		}
	}
	if !m.Complete() {
		return cell, nil, nil
	}
	cs := make([]Side, len(m.Dirs))
	usable := true
	for i, dirs := range m.Dirs {
		side, err := LoadSide(labels[i], dirs, load)
		if err != nil {
			cell.Problems = append(cell.Problems, fmt.Sprintf("%s: skipped: %v", labels[i], err))
		}
		usable = usable && len(side.Runs) > 0
		cs[i] = side
	}
	if !usable {
		return cell, nil, nil
	}
	c, err := Sides(cs[0], cs[1:], opts)
	if err != nil {
		return cell, nil, InputError{fmt.Errorf("cell %s: %w", m.ID, err)}
	}
	c.Warnings = append(c.Warnings, cell.Problems...)
	cell.Dir, cell.Result = results.CompareCellDir(m.ID), &c
	return cell, cs, nil
}
