package results

import (
	"fmt"
	"strconv"
	"strings"
)

// Sent is one row of sent.csv: a transaction the generator sent, or tried
// to send. Intended is when the schedule wanted it sent, Actual when it was
// handed to the connection (and the time in its payload).
type Sent struct {
	Conn     int    // connection index, from 0
	Seq      uint64 // sequence number within the connection, from 0
	Intended int64  // Unix ns
	Actual   int64  // Unix ns; 0 when the send could not be made
	Size     int    // bytes
	Err      string // why the send could not be made; empty when it was written
	// Hash is the transaction's SHA-256 in upper-case hex, as CometBFT
	// names transactions, for transactions the chain walk matches by hash
	// (the user's own, --txs); empty for loadtime payloads, which carry
	// their (conn, seq), and in sent.csv files written before the column.
	Hash string
}

// SentHeader is the header row of sent.csv.
const SentHeader = "conn,seq,intended_ns,actual_ns,size,error,hash"

// SentHeaderV1 is the header row of sent.csv before the hash column: such
// files are still read, every Hash empty.
const SentHeaderV1 = "conn,seq,intended_ns,actual_ns,size,error"

// AppendCSV appends the row (without newline).
func (s *Sent) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, int64(s.Conn), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, s.Seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Intended, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Actual, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.Size), 10)
	b = append(b, ',')
	b = appendField(b, s.Err)
	b = append(b, ',')
	return append(b, s.Hash...)
}

// parse reads a row of either header (7 fields, or 6 before the hash).
func (s *Sent) parse(f []string) (err error) {
	if len(f) != 6 && len(f) != 7 {
		return errFields(7, f)
	}
	s.Hash = ""
	if len(f) == 7 {
		s.Hash = strings.Clone(f[6])
	}
	p := parser{f: f}
	s.Conn = int(p.int(0))
	s.Seq = p.uint(1)
	s.Intended = p.int(2)
	s.Actual = p.int(3)
	s.Size = int(p.int(4))
	s.Err = strings.Clone(f[5])
	return p.err
}

// Reply is one row of replies.csv: the node's answer to one broadcast.
type Reply struct {
	Conn    int
	Seq     uint64
	At      int64  // Unix ns the reply was read
	OK      bool   // accepted (JSON-RPC result with code 0)
	Code    int64  // CheckTx code of a result, or the JSON-RPC error code
	Message string // error message and data, or the CheckTx log
	Hash    string // tx hash (hex) as the node reported it
}

// RepliesHeader is the header row of replies.csv.
const RepliesHeader = "conn,seq,at_ns,ok,code,message,hash"

// AppendCSV appends the row (without newline).
func (r *Reply) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, int64(r.Conn), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.At, 10)
	b = append(b, ',')
	b = appendBool(b, r.OK)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Code, 10)
	b = append(b, ',')
	b = appendField(b, r.Message)
	b = append(b, ',')
	return appendField(b, r.Hash)
}

func (r *Reply) parse(f []string) error {
	if len(f) != 7 {
		return errFields(7, f)
	}
	p := parser{f: f}
	r.Conn = int(p.int(0))
	r.Seq = p.uint(1)
	r.At = p.int(2)
	r.OK = p.bool(3)
	r.Code = p.int(4)
	r.Message = strings.Clone(f[5])
	r.Hash = strings.Clone(f[6])
	return p.err
}

// Tx is one row of txs.csv: one committed transaction of this run.
// Block latency is CommitTime − Sent (loadtime's definition: the time of
// block Height+1 is the BFT time at which block Height was committed).
type Tx struct {
	Conn       int
	Seq        uint64
	Sent       int64 // payload time, Unix ns
	Height     int64
	Index      int   // position in the block
	BlockTime  int64 // time of block Height, Unix ns
	CommitTime int64 // time of block Height+1, Unix ns
	Duplicate  bool  // the same (conn, seq) was committed before
}

// TxsHeader is the header row of txs.csv.
const TxsHeader = "conn,seq,sent_ns,height,index,block_time_ns,commit_time_ns,duplicate"

// Latency returns the block latency in ns.
func (t *Tx) Latency() int64 { return t.CommitTime - t.Sent }

// AppendCSV appends the row (without newline).
func (t *Tx) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, int64(t.Conn), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, t.Seq, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.Sent, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.Height, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Index), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.BlockTime, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, t.CommitTime, 10)
	b = append(b, ',')
	return appendBool(b, t.Duplicate)
}

func (t *Tx) parse(f []string) error {
	if len(f) != 8 {
		return errFields(8, f)
	}
	p := parser{f: f}
	t.Conn = int(p.int(0))
	t.Seq = p.uint(1)
	t.Sent = p.int(2)
	t.Height = p.int(3)
	t.Index = int(p.int(4))
	t.BlockTime = p.int(5)
	t.CommitTime = p.int(6)
	t.Duplicate = p.bool(7)
	return p.err
}

// Block is one row of blocks.csv.
type Block struct {
	Height     int64
	Time       int64 // header time, Unix ns
	CommitTime int64 // time of block Height+1, Unix ns; 0 if not known
	Txs        int   // all transactions in the block
	RunTxs     int   // transactions of this run
	Bytes      int64 // sum of transaction sizes
	Round      int32 // round at which the block was committed (from Height+1's last commit)
	Proposer   string
}

// Committed is when the block was committed: its commit time (block
// Height+1's time under BFT time) when known, else its own header time.
func (k *Block) Committed() int64 {
	if k.CommitTime != 0 {
		return k.CommitTime
	}
	return k.Time
}

// BlocksHeader is the header row of blocks.csv.
const BlocksHeader = "height,time_ns,commit_time_ns,txs,run_txs,tx_bytes,round,proposer"

// AppendCSV appends the row (without newline).
func (k *Block) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, k.Height, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, k.Time, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, k.CommitTime, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(k.Txs), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(k.RunTxs), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, k.Bytes, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(k.Round), 10)
	b = append(b, ',')
	return appendField(b, k.Proposer)
}

func (k *Block) parse(f []string) error {
	if len(f) != 8 {
		return errFields(8, f)
	}
	p := parser{f: f}
	k.Height = p.int(0)
	k.Time = p.int(1)
	k.CommitTime = p.int(2)
	k.Txs = int(p.int(3))
	k.RunTxs = int(p.int(4))
	k.Bytes = p.int(5)
	k.Round = int32(p.int(6))
	k.Proposer = strings.Clone(f[7])
	return p.err
}

// Adoption is one row of adoption.csv: when a node committed a height, by
// the local clock of the machine cometlab runs on.
type Adoption struct {
	Height int64
	Node   string
	At     int64 // Unix ns
}

// AdoptionHeader is the header row of adoption.csv.
const AdoptionHeader = "height,node,at_ns"

// AppendCSV appends the row (without newline).
func (a *Adoption) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, a.Height, 10)
	b = append(b, ',')
	b = appendField(b, a.Node)
	b = append(b, ',')
	return strconv.AppendInt(b, a.At, 10)
}

func (a *Adoption) parse(f []string) error {
	if len(f) != 3 {
		return errFields(3, f)
	}
	p := parser{f: f}
	a.Height = p.int(0)
	a.Node = strings.Clone(f[1])
	a.At = p.int(2)
	return p.err
}

// Event is one row of events.csv: something that happened to a node or
// was done to it, written as it happens. Node is empty for an event of the
// whole testnet. Kind is one of the Event* constants; Detail says more in
// words ("signal 9", "exit code 1", "kill 1/2, down 5s").
type Event struct {
	At     int64 // Unix ns, the local clock of the machine cometlab runs on
	Node   string
	Kind   string
	Detail string
}

// Event kinds. A process's own life (start, exit) is recorded for every
// node, perturbed or not; the perturbation kinds mark what cometlab did,
// and PerturbBegin/PerturbEnd bracket each perturbation's down period.
const (
	EventStart        = "start"         // the node process was started (Detail: pid)
	EventExit         = "exit"          // the process ended (Detail: "exit code N" or "signal N")
	EventKill         = "kill"          // cometlab sent SIGKILL
	EventTerm         = "term"          // cometlab sent SIGTERM (a restart's stop)
	EventPause        = "pause"         // cometlab sent SIGSTOP
	EventResume       = "resume"        // cometlab sent SIGCONT
	EventCut          = "cut"           // the node's p2p links were cut
	EventRestore      = "restore"       // the node's p2p links were restored
	EventWipe         = "wipe"          // the node's data directory was deleted
	EventPerturbBegin = "perturb-begin" // a perturbation began (Detail: what, e.g. "kill 1/2, down 5s")
	EventPerturbEnd   = "perturb-end"   // a perturbation's down period ended
	EventCaughtUp     = "caught-up"     // the node reported catching_up = false at the network's tip
	EventVersion      = "version"       // after an upgrade, the node's /status node_info.version (Detail: "node_info.version 1.0.1")
	EventEvidence     = "evidence"      // duplicate votes signed with the node's validator key were sent as evidence (Detail: height and the node sent to)
)

// EventsHeader is the header row of events.csv.
const EventsHeader = "at_ns,node,event,detail"

// AppendCSV appends the row (without newline).
func (e *Event) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, e.At, 10)
	b = append(b, ',')
	b = appendField(b, e.Node)
	b = append(b, ',')
	b = appendField(b, e.Kind)
	b = append(b, ',')
	return appendField(b, e.Detail)
}

func (e *Event) parse(f []string) error {
	if len(f) != 4 {
		return errFields(4, f)
	}
	p := parser{f: f}
	e.At = p.int(0)
	e.Node = strings.Clone(f[1])
	e.Kind = strings.Clone(f[2])
	e.Detail = strings.Clone(f[3])
	return p.err
}

func errFields(want int, f []string) error {
	return fmt.Errorf("want %d fields, got %d", want, len(f))
}

// parser converts fields, keeping the first error.
type parser struct {
	f   []string
	err error
}

func (p *parser) int(i int) int64 {
	v, err := strconv.ParseInt(p.f[i], 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("field %d: %w", i+1, err)
	}
	return v
}

func (p *parser) uint(i int) uint64 {
	v, err := strconv.ParseUint(p.f[i], 10, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("field %d: %w", i+1, err)
	}
	return v
}

func (p *parser) float(i int) float64 {
	v, err := strconv.ParseFloat(p.f[i], 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("field %d: %w", i+1, err)
	}
	return v
}

func (p *parser) bool(i int) bool {
	switch p.f[i] {
	case "1", "true":
		return true
	case "0", "false", "":
		return false
	}
	if p.err == nil {
		p.err = fmt.Errorf("field %d: %q is not a boolean", i+1, p.f[i])
	}
	return false
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}
