package results

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
)

// StagesFile holds the stage breakdown of every height of the run,
// written by analysis next to summary.json (docs/autopsy.md#stages).
const StagesFile = "stages.csv"

// StagesHeader is the header row of stages.csv.
const StagesHeader = "height,round,precommits,first_precommit_ms,precommit_quorum_ms,first_commit_ms,adoption_spread_ms"

// Stage is one height's row of stages.csv: how long each stage of the
// height took, from the chain (precommit timestamps, on the validators'
// clocks) and from adoption.csv (when each node's commit was heard, on
// cometlab's clock). A stage that cannot be measured is NaN (an empty
// field).
type Stage struct {
	Height int64
	Round  int32
	// Precommits is how many validators' precommits for the block the
	// commit holds (of all the validators it lists).
	Precommits int
	// FirstPrecommitMs is from the height's header time (the previous
	// height's commit, under BFT time) to the first precommit: the wait
	// after commit (timeout_commit), the proposal and the prevote quorum,
	// and every failed round.
	FirstPrecommitMs float64
	// QuorumMs is from the first precommit to the one that made more than
	// two thirds of the validators (by count).
	QuorumMs float64
	// CommitMs is from that precommit to the first node heard committing.
	CommitMs float64
	// SpreadMs is from the first node heard committing to the last.
	SpreadMs float64
}

// AppendCSV appends the row (without newline).
func (s *Stage) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, s.Height, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Round), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Precommits), 10)
	for _, v := range [...]float64{s.FirstPrecommitMs, s.QuorumMs, s.CommitMs, s.SpreadMs} {
		b = append(b, ',')
		if !math.IsNaN(v) {
			b = strconv.AppendFloat(b, v, 'f', 1, 64)
		}
	}
	return b
}

func (s *Stage) parse(f []string) error {
	if len(f) != 7 {
		return errFields(7, f)
	}
	p := parser{f: f}
	s.Height = p.int(0)
	s.Round = int32(p.int(1))
	s.Precommits = int(p.int(2))
	for i, v := range [...]*float64{&s.FirstPrecommitMs, &s.QuorumMs, &s.CommitMs, &s.SpreadMs} {
		*v = math.NaN()
		if f[3+i] != "" {
			*v = p.float(3 + i)
		}
	}
	return p.err
}

// WriteStages writes dir/stages.csv (replacing it).
func WriteStages(dir string, rows []Stage) error {
	w, err := Create(filepath.Join(dir, StagesFile), StagesHeader)
	if err != nil {
		return err
	}
	for i := range rows {
		if err := w.Write(&rows[i]); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// ReadStages reads dir/stages.csv (or .gz); none for a run without one.
func ReadStages(dir string) ([]Stage, error) {
	rows, err := readAll[Stage](filepath.Join(dir, StagesFile), StagesHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}
