package load

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/payload"
)

// TxSource makes the transactions of a load, the way tm-load-test's
// ClientFactory makes a Client per connection: Conn is called once for
// each connection before the load starts, and each TxGen is then used by
// that connection's sender alone. A Go program plugs in its own source
// (signed transactions of its chain, say) through Config.Source.
type TxSource interface {
	// Conn returns the generator of connection k's transactions (of c).
	Conn(k, c int) (TxGen, error)
	// Hashed reports whether the transactions must be found on the chain
	// by their SHA-256 (they carry no run id, connection and sequence of
	// their own, as loadtime payloads do): sent.csv then records each
	// one's hash, and the chain walk matches blocks' transactions against
	// it.
	Hashed() bool
}

// TxGen makes one connection's transactions in order, like tm-load-test's
// Client.GenerateTx.
type TxGen interface {
	// Tx returns the transaction of the connection's send n (counted from
	// 0), made at now. The slice is only read until the next call. An
	// error makes the send fail (logged in sent.csv with the error).
	Tx(n uint64, now time.Time) ([]byte, error)
}

// Payloads returns the default source: loadtime payloads of size bytes
// (see payload.NewEncoder) carrying the run id, connection, sequence and
// send time, which the chain walk decodes; rate is written into them.
// Each transaction asks for one of lanes, picked by weight
// (payload.LanePicker); none without lanes.
func Payloads(connections int, rate float64, size int, runID [16]byte, lanes ...payload.LaneWeight) TxSource {
	return payloads{c: connections, rate: rate, size: size, id: runID, lanes: payload.NewLanePicker(lanes)}
}

type payloads struct {
	c     int
	rate  float64
	size  int
	id    [16]byte
	lanes payload.LanePicker
}

func (p payloads) Conn(k, _ int) (TxGen, error) {
	enc, err := payload.NewEncoder(uint64(p.c), uint64(max(p.rate+0.5, 0)), uint64(p.size), p.id)
	if err != nil {
		return nil, err
	}
	return payloadGen{enc: enc, k: uint64(k), lanes: p.lanes}, nil
}

func (payloads) Hashed() bool { return false }

type payloadGen struct {
	enc   *payload.Encoder
	k     uint64
	lanes payload.LanePicker
}

func (g payloadGen) Tx(n uint64, now time.Time) ([]byte, error) {
	return g.enc.EncodeLane(g.k, n, now, g.lanes.Pick(g.k, n)), nil
}

// Lines returns the source that sends txs in order over the connections:
// with c connections, connection k's send n is txs[n·c + k], so the
// connections together send the lines in the order of their schedule's
// one stream. name names the file in the error of a send past its end.
// The transactions are matched on the chain by hash.
func Lines(name string, txs [][]byte) TxSource { return lines{name: name, txs: txs} }

type lines struct {
	name string
	txs  [][]byte
}

func (l lines) Conn(k, c int) (TxGen, error) {
	return lineGen{l: l, k: uint64(k), c: uint64(c)}, nil
}

func (lines) Hashed() bool { return true }

type lineGen struct {
	l    lines
	k, c uint64
}

func (g lineGen) Tx(n uint64, _ time.Time) ([]byte, error) {
	i := n*g.c + g.k
	if i >= uint64(len(g.l.txs)) {
		return nil, fmt.Errorf("%s has only %d transactions", g.l.name, len(g.l.txs))
	}
	return g.l.txs[i], nil
}

// MaxTxLine bounds one line of a transactions file: a 4 MiB transaction in
// base64, CometBFT's largest max_tx_bytes being 1 MiB by default.
const MaxTxLine = 6 << 20

// ReadTxFile reads the transactions file at path; see ParseTxs.
func ReadTxFile(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transactions: %w", err)
	}
	defer f.Close()
	return ParseTxs(path, f)
}

// ParseTxs reads one transaction a line, all in hex or all in base64
// (standard alphabet, padded): the file is hex when every line is (an even
// number of hex digits), else base64. Spaces around a line and blank lines
// are skipped. Errors name file:line; a file that is neither hex nor
// base64 is reported at its first line that is not base64, saying which
// line made it not hex.
func ParseTxs(name string, r io.Reader) ([][]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxTxLine)
	var (
		texts   []string
		nums    []int
		notHex  = 0 // first line that is not hex
		lineNum = 0
	)
	for sc.Scan() {
		lineNum++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		if strings.ContainsAny(t, " \t\r\v\f") {
			return nil, fmt.Errorf("%s:%d: white space inside the line (want one transaction a line, in hex or base64)", name, lineNum)
		}
		if notHex == 0 && !isHex(t) {
			notHex = lineNum
		}
		texts, nums = append(texts, t), append(nums, lineNum)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes", MaxTxLine)
		}
		return nil, fmt.Errorf("%s:%d: %w", name, lineNum+1, err)
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s: no transactions (want one a line, in hex or base64)", name)
	}
	txs := make([][]byte, len(texts))
	for i, t := range texts {
		var err error
		if notHex == 0 {
			txs[i], err = hex.DecodeString(t)
		} else {
			txs[i], err = base64.StdEncoding.Strict().DecodeString(t)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: not base64 (%v); the file is read as base64 because line %d is not hex", name, nums[i], err, notHex)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, nums[i], err)
		}
		if len(txs[i]) == 0 {
			return nil, fmt.Errorf("%s:%d: empty transaction", name, nums[i])
		}
	}
	return txs, nil
}

// isHex reports whether s is an even number of hex digits.
func isHex(s string) bool {
	if len(s)%2 != 0 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
