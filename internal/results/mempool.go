package results

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// MempoolFile holds each node's mempool right after it committed each
// height: one row per node and height, asked over RPC
// (num_unconfirmed_txs) as soon as the node's commit of the height was
// heard (see collect.Heights).
const MempoolFile = "mempool.csv"

// MempoolHeader is the header row of mempool.csv.
const MempoolHeader = "height,node,at_ns,txs,bytes"

// MempoolSample is one row of mempool.csv: what node Node's mempool held
// right after it committed Height. At is when the question was asked
// (cometlab's clock), just after the commit was heard: the answer is of a
// moment no earlier.
type MempoolSample struct {
	Height int64
	Node   string
	At     int64 // Unix ns
	Txs    int64 // transactions in the mempool
	Bytes  int64 // their summed size
}

// AppendCSV appends the row (without newline).
func (m *MempoolSample) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, m.Height, 10)
	b = append(b, ',')
	b = appendField(b, m.Node)
	b = append(b, ',')
	b = strconv.AppendInt(b, m.At, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, m.Txs, 10)
	b = append(b, ',')
	return strconv.AppendInt(b, m.Bytes, 10)
}

func (m *MempoolSample) parse(f []string) error {
	if len(f) != 5 {
		return errFields(5, f)
	}
	p := parser{f: f}
	m.Height = p.int(0)
	m.Node = strings.Clone(f[1])
	m.At = p.int(2)
	m.Txs = p.int(3)
	m.Bytes = p.int(4)
	return p.err
}

// ReadMempool reads dir/mempool.csv (or .gz); a run without one (made
// before the file was written, or without heights followed) has no
// samples and no error.
func ReadMempool(dir string) ([]MempoolSample, error) {
	rows, err := readAll[MempoolSample](filepath.Join(dir, MempoolFile), MempoolHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}
