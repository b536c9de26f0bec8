package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// WalkConfig says which part of which chain to read.
type WalkConfig struct {
	Client   *rpc.Client
	From, To int64    // heights whose transactions are read; To+1 must exist (its time is To's commit time)
	RunID    [16]byte // only payloads with this id are this run's
	// ByHash, when set, makes the run's transactions those whose SHA-256 it
	// holds (sent.csv's hash column: the user's own transactions, which
	// carry no payload), instead of the payloads with RunID; a tx row then
	// takes its connection, sequence and send time from the send.
	ByHash  map[[32]byte]HashedSend
	Workers int // concurrent block requests; 0 means 8
	// Progress, if set, is called after each processed height.
	Progress func(height int64)
	// OnTx, if set, is called with each txs row as it is written.
	OnTx func(tx *results.Tx)
	// Precommits, if set, gets one precommits.csv row per validator and
	// height, from the next block's last commit; a commit with an absent
	// vote costs one /validators request (at that height) to name it.
	Precommits *results.Writer
	// Names maps validator addresses (upper-case hex) to node names.
	Names map[string]string
	// Evidence, if set, gets one evidence.csv row per piece of evidence
	// and accused validator in the walked blocks.
	Evidence *results.Writer
	// Results, if set, gets one tx_results.csv row per txs row: the app's
	// verdict on the transaction (code, codespace, gas), from
	// /block_results of each block that holds one of the run's.
	Results *results.Writer
}

// WalkStats counts what a walk saw.
type WalkStats struct {
	Blocks     int64
	Txs        int64 // all transactions in the walked blocks
	RunTxs     int64 // this run's (duplicates included)
	Duplicates int64
	OtherTxs   int64 // not loadtime-style payloads, or another run's
	// Failed counts the run's committed transactions whose result code
	// was not 0 (with WalkConfig.Results; duplicates included).
	Failed  int64
	Unnamed int64 // absent precommits whose validator /validators did not name
	Elapsed time.Duration
}

// HashedSend is the send a transaction hash was matched to.
type HashedSend struct {
	Conn int
	Seq  uint64
	Sent int64 // actual send time, Unix ns
}

// HashIndex indexes the sends of sent.csv that carry a hash (and were
// made) by the hash's bytes; a hash sent twice keeps its first send. It
// returns nil when no row has a hash.
func HashIndex(sent []results.Sent) (map[[32]byte]HashedSend, error) {
	var ix map[[32]byte]HashedSend
	for i := range sent {
		s := &sent[i]
		if s.Hash == "" || s.Actual == 0 || s.Err != "" {
			continue
		}
		var h [32]byte
		if n, err := hex.Decode(h[:], []byte(s.Hash)); err != nil || n != len(h) {
			return nil, fmt.Errorf("%s: conn %d seq %d: hash %q is not 64 hex digits", results.SentFile, s.Conn, s.Seq, s.Hash)
		}
		if ix == nil {
			ix = map[[32]byte]HashedSend{}
		}
		if _, dup := ix[h]; !dup {
			ix[h] = HashedSend{Conn: s.Conn, Seq: s.Seq, Sent: s.Actual}
		}
	}
	return ix, nil
}

type connSeq struct {
	conn int
	seq  uint64
}

// fetched is one block, its payloads already decoded by the worker.
type fetched struct {
	blk rpc.Block
	run []payload.Header // this run's payloads, in block order
	idx []int            // their positions in the block
	// res holds the app's result of each of run (WalkConfig.Results),
	// nil until fetched.
	res []rpc.TxResult
}

// Walk reads blocks From..To+1 from the node, decodes the run's payloads and
// writes one txs row per committed run transaction (block latency uses the
// time of block H+1, loadtime's definition) and one blocks row per height.
// Blocks are fetched and decoded concurrently and written in height order.
// A (conn, seq) seen again is written with Duplicate set.
func Walk(ctx context.Context, cfg WalkConfig, txs, blocks *results.Writer) (WalkStats, error) {
	w := NewWalker(cfg, txs, blocks)
	err := w.WalkTo(ctx, cfg.To)
	return w.Stats(), err
}

// Walker is Walk in steps: each WalkTo continues where the last one
// stopped, so that a chain can be read while it grows (the same rows, in
// the same order, as one Walk over the whole range).
type Walker struct {
	cfg         WalkConfig
	txs, blocks *results.Writer
	seen        *seqSet
	prev        *fetched // the last block fetched, not yet written (its successor gives its commit time)
	next        int64    // the next height to fetch
	st          WalkStats
}

// NewWalker returns a walker from cfg.From; cfg.To is not used.
func NewWalker(cfg WalkConfig, txs, blocks *results.Writer) *Walker {
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	return &Walker{cfg: cfg, txs: txs, blocks: blocks, seen: newSeqSet(), next: cfg.From}
}

// SetClient makes the walker read from another node of the same chain.
func (w *Walker) SetClient(c *rpc.Client) { w.cfg.Client = c }

// Done returns the last height written (cfg.From − 1 before any).
func (w *Walker) Done() int64 {
	if w.prev == nil {
		return w.next - 1
	}
	return w.prev.blk.Height - 1
}

// DoneAt returns the commit time (Unix ns) of Done(): the time of the
// block after it, which the walker has fetched; 0 before any height is
// written.
func (w *Walker) DoneAt() int64 {
	if w.prev == nil {
		return 0
	}
	return w.prev.blk.Time.UnixNano()
}

// Stats returns what the walker saw so far.
func (w *Walker) Stats() WalkStats { return w.st }

// WalkTo writes the heights after Done() up to to, fetching to+1 (which
// must exist) for the commit time of to, and flushes the writers.
func (w *Walker) WalkTo(ctx context.Context, to int64) error {
	if to <= w.Done() {
		return nil
	}
	start := time.Now()
	defer func() { w.st.Elapsed += time.Since(start) }()
	const chunk = 64
	for lo := w.next; lo <= to+1; lo += chunk {
		hi := min(lo+chunk-1, to+1)
		batch := make([]fetched, hi-lo+1)
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(w.cfg.Workers)
		for h := lo; h <= hi; h++ {
			g.Go(func() error {
				// A block's results are stored once the next block is under
				// way: to+1's are read when it is written (needResults).
				f, err := fetch(gctx, w.cfg, h, h <= to)
				batch[h-lo] = f
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i := range batch {
			cur := &batch[i]
			if w.prev != nil {
				if err := needResults(ctx, w.cfg, w.prev); err != nil {
					return err
				}
				w.st.add(emit(w.prev, cur.blk.Time, cur.blk.LastRound, w.seen, w.txs, w.blocks, w.cfg.OnTx))
				w.st.Failed += writeResults(w.cfg.Results, w.prev)
				w.st.Unnamed += writeVotes(w.cfg, w.prev.blk, cur.blk.LastCommit)
				writeEvidence(w.cfg.Evidence, &w.prev.blk)
				if w.cfg.Progress != nil {
					w.cfg.Progress(w.prev.blk.Height)
				}
			}
			w.prev = cur
		}
		// Keep the last block (its successor is in the next chunk) but drop
		// the rest of this chunk's memory.
		last := *w.prev
		w.prev = &last
		w.next = hi + 1
	}
	errs := []error{w.txs.Flush(), w.blocks.Flush()}
	for _, x := range []*results.Writer{w.cfg.Precommits, w.cfg.Evidence, w.cfg.Results} {
		if x != nil {
			errs = append(errs, x.Flush())
		}
	}
	return errors.Join(errs...)
}

// writeEvidence writes block b's evidence to w (nothing when w is nil).
func writeEvidence(w *results.Writer, b *rpc.Block) {
	if w == nil {
		return
	}
	for _, e := range b.Evidence {
		for _, v := range e.Validators {
			w.Write(&results.Evidence{Height: b.Height, Type: e.Type, EvidenceHeight: e.Height, Validator: v})
		}
	}
}

// needResults fetches the results of b's run transactions when the walk
// writes them and b was fetched without (the last block of a WalkTo).
func needResults(ctx context.Context, cfg WalkConfig, b *fetched) error {
	if cfg.Results == nil || len(b.run) == 0 || b.res != nil {
		return nil
	}
	return b.results(ctx, cfg.Client)
}

// results fetches /block_results of b and keeps those of its run
// transactions.
func (b *fetched) results(ctx context.Context, c *rpc.Client) error {
	all, err := c.BlockResults(ctx, b.blk.Height)
	if err != nil {
		return err
	}
	if len(all) != b.blk.TxCount {
		return fmt.Errorf("block_results %d from %s: %d results for the block's %d transactions", b.blk.Height, c.Addr(), len(all), b.blk.TxCount)
	}
	b.res = make([]rpc.TxResult, len(b.idx))
	for i, j := range b.idx {
		b.res[i] = all[j]
	}
	return nil
}

// writeResults writes the results of b's run transactions to w (nothing
// when w is nil) and returns how many failed.
func writeResults(w *results.Writer, b *fetched) (failed int64) {
	if w == nil {
		return 0
	}
	for i, p := range b.run {
		r := b.res[i]
		row := results.TxResult{Conn: int(p.Connection), Seq: p.Seq, Height: b.blk.Height, Index: b.idx[i],
			Code: r.Code, Codespace: r.Codespace, GasWanted: r.GasWanted, GasUsed: r.GasUsed}
		if r.Code != 0 {
			failed++
			row.Log = cutLog(r.Log)
		}
		w.Write(&row)
	}
	return failed
}

// cutLog is log cut to results.MaxResultLog bytes, at a rune boundary.
func cutLog(log string) string {
	if len(log) <= results.MaxResultLog {
		return log
	}
	n := results.MaxResultLog
	for n > 0 && !utf8.RuneStart(log[n]) {
		n--
	}
	return log[:n]
}

func fetch(ctx context.Context, cfg WalkConfig, h int64, withResults bool) (fetched, error) {
	blk, err := cfg.Client.Block(ctx, h)
	if err != nil {
		return fetched{}, err
	}
	f := fetched{blk: blk}
	if cfg.Precommits != nil {
		nameAbsent(ctx, cfg.Client, &f.blk)
	}
	for i, tx := range blk.Txs {
		if cfg.ByHash != nil {
			if s, ok := cfg.ByHash[sha256.Sum256(tx)]; ok {
				f.run = append(f.run, payload.Header{Connection: uint64(s.Conn), Seq: s.Seq, Time: time.Unix(0, s.Sent)})
				f.idx = append(f.idx, i)
			}
			continue
		}
		p, err := payload.Decode(tx)
		if err != nil || p.ID != cfg.RunID {
			continue
		}
		f.run = append(f.run, p)
		f.idx = append(f.idx, i)
	}
	f.blk.Txs = nil // decoded; the raw bytes are no longer needed
	if cfg.Results != nil && withResults && len(f.run) > 0 {
		if err := f.results(ctx, cfg.Client); err != nil {
			return fetched{}, err
		}
	}
	return f, nil
}

// emit writes block b (committed at commit, in round round) and its run
// transactions.
func emit(b *fetched, commit time.Time, round int32, seen *seqSet, txs, blocks *results.Writer, onTx func(*results.Tx)) (s WalkStats) {
	bt, ct := b.blk.Time.UnixNano(), commit.UnixNano()
	for i, p := range b.run {
		k := connSeq{int(p.Connection), p.Seq}
		dup := seen.add(k)
		if dup {
			s.Duplicates++
		}
		rec := results.Tx{Conn: k.conn, Seq: k.seq, Sent: p.Time.UnixNano(), Height: b.blk.Height,
			Index: b.idx[i], BlockTime: bt, CommitTime: ct, Duplicate: dup}
		txs.Write(&rec)
		if onTx != nil {
			onTx(&rec)
		}
	}
	n := b.blk.TxCount
	blocks.Write(&results.Block{Height: b.blk.Height, Time: bt, CommitTime: ct, Txs: n,
		RunTxs: len(b.run), Bytes: b.blk.TxBytes, Round: round, Proposer: b.blk.Proposer})
	s.Blocks = 1
	s.Txs = int64(n)
	s.RunTxs = int64(len(b.run))
	s.OtherTxs = int64(n - len(b.run))
	return s
}

func (s *WalkStats) add(o WalkStats) {
	s.Blocks += o.Blocks
	s.Txs += o.Txs
	s.RunTxs += o.RunTxs
	s.Duplicates += o.Duplicates
	s.OtherTxs += o.OtherTxs
	s.Failed += o.Failed
	s.Unnamed += o.Unnamed
}

// String summarises the walk for logs.
func (s WalkStats) String() string {
	u := ""
	if s.Unnamed > 0 {
		u = fmt.Sprintf(", %d absent precommits unnamed", s.Unnamed)
	}
	if s.Failed > 0 {
		u += fmt.Sprintf(", %d of the run's failed in the app", s.Failed)
	}
	return fmt.Sprintf("%d blocks, %d txs (%d of this run, %d duplicates, %d other%s) in %s",
		s.Blocks, s.Txs, s.RunTxs, s.Duplicates, s.OtherTxs, u, s.Elapsed.Round(time.Millisecond))
}
