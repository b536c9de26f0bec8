package results

import (
	"path/filepath"
	"strconv"
	"strings"
)

// AutopsyFile holds a verdict for each slow height of the run, written by
// analysis (docs/autopsy.md).
const AutopsyFile = "autopsy.csv"

// AutopsyHeader is the header row of autopsy.csv.
const AutopsyHeader = "height,round,proposer,interval_ms,cause,node,evidence"

// Verdict is one slow height's row of autopsy.csv: why the height took
// long, which node it blames and the figures that said so. Time is kept
// in summary.json for the report's plot, not in the file.
type Verdict struct {
	Height     int64   `json:"height"`
	Time       int64   `json:"time_ns"` // the block's header time
	Round      int32   `json:"round"`
	Proposer   string  `json:"proposer"` // of the committed block (node name, else address)
	IntervalMs float64 `json:"interval_ms"`
	Cause      string  `json:"cause"`
	Node       string  `json:"node,omitempty"`
	Evidence   string  `json:"evidence"`
}

// AppendCSV appends the row (without newline).
func (v *Verdict) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, v.Height, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(v.Round), 10)
	b = append(b, ',')
	b = appendField(b, v.Proposer)
	b = append(b, ',')
	b = strconv.AppendFloat(b, v.IntervalMs, 'f', 1, 64)
	for _, f := range []string{v.Cause, v.Node, v.Evidence} {
		b = append(b, ',')
		b = appendField(b, f)
	}
	return b
}

func (v *Verdict) parse(f []string) error {
	if len(f) != 7 {
		return errFields(7, f)
	}
	p := parser{f: f}
	v.Height = p.int(0)
	v.Round = int32(p.int(1))
	v.Proposer = strings.Clone(f[2])
	v.IntervalMs = p.float(3)
	v.Cause, v.Node, v.Evidence = strings.Clone(f[4]), strings.Clone(f[5]), strings.Clone(f[6])
	return p.err
}

// WriteAutopsy writes dir/autopsy.csv (replacing it) with the verdicts.
func WriteAutopsy(dir string, vs []Verdict) error {
	w, err := Create(filepath.Join(dir, AutopsyFile), AutopsyHeader)
	if err != nil {
		return err
	}
	for i := range vs {
		if err := w.Write(&vs[i]); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// ReadAutopsy reads dir/autopsy.csv (or .gz).
func ReadAutopsy(dir string) ([]Verdict, error) {
	return readAll[Verdict](filepath.Join(dir, AutopsyFile), AutopsyHeader)
}
