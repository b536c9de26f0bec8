package experiment

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// Reading the chain while the load runs.
const (
	livePoll    = 2 * time.Second // how often the reader node's height is polled
	liveWorkers = 2               // block requests in flight to the reader node
	liveLine    = 5 * time.Second // how often the live line is printed
)

// liveReader reads the run's blocks as they are committed, from a node
// other than the load target when there is one, into txs.csv and
// blocks.csv, so that after the load only the last blocks are left to
// read. Reads are bounded: one height poll every livePoll, at most
// liveWorkers block requests in flight.
type liveReader struct {
	files  *walkFiles
	reader *rpc.Client
	name   string        // the reader node
	poll   time.Duration // livePoll at the testnet's time scale

	mu     sync.Mutex // guards w and the window below
	w      *collect.Walker
	err    error           // the last error of a live step (retried at the next poll)
	window analysis.Sketch // block latencies (ns) of the txs read since the last line
	first  commitMark      // the chain as first read (At 0 before)
}

// newLiveReader creates the walk's files and a walker from height
// first, reading from the first node that is not the target nor perturbed
// nor rotating (the target when there is none).
func (p *pipeline) newLiveReader() (*liveReader, error) {
	l := &liveReader{reader: p.chain.target, name: "the target", poll: p.harnessEvery(livePoll)}
	if p.read.liveFrom != "" {
		l.reader, l.name = rpc.New(p.read.liveFrom), p.read.liveFrom
	}
	for _, n := range p.chain.nodes {
		if p.read.liveFrom != "" {
			break
		}
		if n.Name != p.chain.targetName && n.Addr != p.chain.target.Addr() && !p.read.avoid[n.Name] {
			l.reader, l.name = rpc.New(n.Addr), n.Name
			break
		}
	}
	var err error
	if l.files, err = p.rd.createWalkFiles(false); err != nil {
		return nil, err
	}
	l.w = collect.NewWalker(l.files.config(p.rd, collect.WalkConfig{Client: l.reader, From: p.first, RunID: p.id, Workers: liveWorkers,
		OnTx: l.onTx}), l.files.txs, l.files.blocks)
	return l, nil
}

// onTx is called under l.mu (from WalkTo).
func (l *liveReader) onTx(t *results.Tx) {
	if !t.Duplicate && t.CommitTime != 0 {
		l.window.Add(float64(t.Latency()))
	}
}

// mark returns the chain as read so far (l.mu held).
func (l *liveReader) mark() commitMark {
	return commitMark{Height: l.w.Done(), At: l.w.DoneAt(), Txs: l.w.Stats().RunTxs}
}

// run reads what the reader node committed until ctx ends: every l.poll,
// the heights up to the reader's height − 1 (whose commit time is known).
func (l *liveReader) run(ctx context.Context) {
	every(ctx, l.poll, func() {
		h, err := l.reader.Height(ctx)
		if err != nil {
			return
		}
		l.mu.Lock()
		l.err = l.w.WalkTo(ctx, h-1)
		if l.first.At == 0 {
			l.first = l.mark()
		}
		l.mu.Unlock()
	})
}

// finish reads the heights left up to last from the target (which has
// them all: the read-back waited for it) and closes the files.
func (r *liveRun) finish(ctx context.Context, out *Printer, target *rpc.Client, last int64) error {
	r.cancel()
	<-r.done
	l := r.liveReader
	l.mu.Lock()
	defer l.mu.Unlock()
	done := l.w.Done()
	start := time.Now()
	l.w.SetClient(target)
	left := fmt.Sprintf("reading %d…%d from the target", done+1, last)
	if done >= last {
		left = "nothing left to read"
	}
	out.Phase("read-back: %d heights read during the load and drain from %s (up to %d); %s", l.w.Stats().Blocks, l.name, done, left)
	err := l.w.WalkTo(ctx, last)
	if err == nil {
		out.Phase("read-back: %d heights left after the load read in %s; in all %s", max(0, last-done), since(start), l.w.Stats())
	}
	if err != nil {
		err = fmt.Errorf("read back: %w", err)
	}
	return errors.Join(err, l.files.close())
}

// close closes the files (a no-op after finish).
func (l *liveReader) close() { l.files.close() }

// liveLines prints the live line every liveLine (×k at time scale k)
// until ctx ends: sent,
// committed (read so far), the committed rate between the last commit read
// before the previous line and the last read before this one
// (committedRate), block latency p50/p99 of the transactions read since
// the last line, the mempools' total, late sends. On a terminal it is
// redrawn in place, else printed one line at a time.
func (p *pipeline) liveLines(ctx context.Context, l *liveReader, gen loadRunner, start time.Time) {
	var prev commitMark // the last commit read before the previous line
	every(ctx, p.harnessEvery(liveLine), func() {
		if wait := time.Until(start); wait > 0 { // load hosts waiting for their start time
			p.out.Live("live: the load hosts start in %s", wait.Round(time.Second))
			return
		}
		st := gen.Stats()
		mempool := p.mempoolTotal(ctx)
		l.mu.Lock()
		ws, cur := l.w.Stats(), l.mark()
		if prev.At == 0 {
			prev = l.first
		}
		p50, p99 := l.window.Percentile(50), l.window.Percentile(99)
		l.window = analysis.Sketch{}
		l.mu.Unlock()
		rate := committedRate(prev, cur, time.Now().UnixNano())
		prev = cur
		lat := "latency —"
		if !isNaN(p50) {
			lat = fmt.Sprintf("latency p50 %.0f ms p99 %.0f ms", p50/results.NsPerMs, p99/results.NsPerMs)
		}
		sent := fmt.Sprintf("sent %d", st.Sent)
		if p.send.loadHosts != nil {
			sent = "sent from the load hosts" // their counts come with their logs
		}
		p.out.Live("live %5.0fs  %s  committed %d  %s  %s  mempools %s  late %d",
			time.Since(start).Seconds(), sent, ws.RunTxs-ws.Duplicates, rate, lat, mempool, st.Late)
	})
}

func isNaN(f float64) bool { return f != f }

// mempoolTotal returns the number of transactions in every node's
// mempool, "?" for a node that did not answer.
func (p *pipeline) mempoolTotal(ctx context.Context) string {
	m := pollMempools(ctx, p.chain.nodes, time.Second)
	if m.failed > 0 {
		return fmt.Sprintf("%d (+%d nodes ?)", m.total, m.failed)
	}
	return fmt.Sprint(m.total)
}

// liveRun is a live reader running, with the live line.
type liveRun struct {
	*liveReader
	cancel context.CancelFunc
	done   chan struct{}
}

// startLive starts reading the chain and printing the live line, when the
// run reads back and its read plan is live; it returns nil otherwise.
// Reading goes on through the drain until stop (readBack's finish stops
// it first).
func (p *pipeline) startLive(hard context.Context, gen loadRunner, start time.Time) (*liveRun, error) {
	if !p.read.on || !p.read.live {
		return nil, nil
	}
	if p.send.source != nil && p.send.source.Hashed() {
		// The user's own transactions are matched by hash against the
		// whole of sent.csv: they are read back after the load.
		return nil, nil
	}
	l, err := p.newLiveReader()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(hard))
	r := &liveRun{liveReader: l, cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() { l.run(ctx) })
	wg.Go(func() { p.liveLines(ctx, l, gen, start) })
	go func() { wg.Wait(); close(r.done) }()
	return r, nil
}

// stop stops reading and the live line (idempotent; nil-safe) and closes
// the files if finish did not.
func (r *liveRun) stop() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
	r.close()
}
