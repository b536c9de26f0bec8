package results

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// PrecommitFile holds each validator's precommit for each height, read
// from the last commit of the next block (RPC /block, every release):
// one row per validator and height.
const PrecommitFile = "precommits.csv"

// PrecommitHeader is the header row of precommits.csv.
const PrecommitHeader = "height,validator,node,flag,offset_ms"

// Precommit is one row of precommits.csv: validator Validator's precommit
// for Height as block Height+1 recorded it. Flag is "commit" (for the
// block), "nil" or "absent" (not in the commit). OffsetMs is the
// precommit's timestamp minus the header time of block Height, in ms
// (the validator's own clock; 0 when absent).
type Precommit struct {
	Height    int64
	Validator string // hex address
	Node      string // the testnet's name for it; "" when unknown
	Flag      string
	OffsetMs  float64
}

// AppendCSV appends the row (without newline).
func (p *Precommit) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, p.Height, 10)
	b = append(b, ',')
	b = appendField(b, p.Validator)
	b = append(b, ',')
	b = appendField(b, p.Node)
	b = append(b, ',')
	b = appendField(b, p.Flag)
	b = append(b, ',')
	return strconv.AppendFloat(b, p.OffsetMs, 'f', 3, 64)
}

func (p *Precommit) parse(f []string) error {
	if len(f) != 5 {
		return errFields(5, f)
	}
	ps := parser{f: f}
	p.Height = ps.int(0)
	p.Validator = strings.Clone(f[1])
	p.Node = strings.Clone(f[2])
	p.Flag = strings.Clone(f[3])
	p.OffsetMs = ps.float(4)
	if ps.err == nil && p.Flag != "commit" && p.Flag != "nil" && p.Flag != "absent" {
		return fmt.Errorf("flag %q is not commit, nil or absent", p.Flag)
	}
	return ps.err
}

// ReadPrecommits reads dir/precommits.csv (or .gz); a run without one
// (made before the file was written) has no rows and no error.
func ReadPrecommits(dir string) ([]Precommit, error) {
	rows, err := readAll[Precommit](filepath.Join(dir, PrecommitFile), PrecommitHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}
