package results

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// TxResultsFile holds the app's verdict on each committed transaction of
// a run whose transactions are the user's own or an SDK chain's (a run
// whose transactions are matched by hash): one row per txs.csv row, from
// the node's /block_results.
const TxResultsFile = "tx_results.csv"

// TxResult is one row of tx_results.csv: what the app said of one
// committed transaction of the run. Code 0 is success; a committed
// transaction with another code was ordered and executed and failed (its
// fee paid, its messages undone), named by codespace and code.
type TxResult struct {
	Conn      int
	Seq       uint64
	Height    int64
	Index     int // position in the block
	Code      uint32
	Codespace string
	GasWanted int64
	GasUsed   int64
	Log       string // the app's log for a failure ("" for success), cut to MaxResultLog bytes
}

// MaxResultLog is the most of a failed transaction's log tx_results.csv
// keeps: enough to name the failure, never the events of a whole block.
const MaxResultLog = 200

// TxResultsHeader is the header row of tx_results.csv.
const TxResultsHeader = "conn,seq,height,index,code,codespace,gas_wanted,gas_used,log"

// AppendCSV appends the row (without newline).
func (t *TxResult) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, int64(t.Conn), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, t.Seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.Height, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Index), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, uint64(t.Code), 10)
	b = append(b, ',')
	b = appendField(b, t.Codespace)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.GasWanted, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.GasUsed, 10)
	b = append(b, ',')
	return appendField(b, t.Log)
}

func (t *TxResult) parse(f []string) error {
	if len(f) != 9 {
		return errFields(9, f)
	}
	p := parser{f: f}
	t.Conn = int(p.int(0))
	t.Seq = p.uint(1)
	t.Height = p.int(2)
	t.Index = int(p.int(3))
	t.Code = uint32(p.uint(4))
	t.Codespace = strings.Clone(f[5])
	t.GasWanted = p.int(6)
	t.GasUsed = p.int(7)
	t.Log = strings.Clone(f[8])
	return p.err
}

// ReadTxResults reads dir/tx_results.csv; nil and no error when the run
// has none (its transactions were loadtime payloads, whose verdict the
// kvstore never varies).
func ReadTxResults(dir string) ([]TxResult, error) {
	rows, err := readAll[TxResult](filepath.Join(dir, TxResultsFile), TxResultsHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}
