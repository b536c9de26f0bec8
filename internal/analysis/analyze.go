package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cometlab/cometlab/internal/results"
)

// Analyze reads the run directory dir, summarises it and writes
// dir/summary.json atomically. run.json and sent.csv must be there; a
// missing replies.csv, txs.csv, blocks.csv, adoption.csv, metrics.csv or
// resources.csv (or its .gz) means that nothing was gathered, which the
// summary's Notes say.
func Analyze(dir string) (Summary, error) {
	s, _, err := AnalyzeInput(dir)
	return s, err
}

// AnalyzeInput is Analyze, also returning what it read (ReadStream), for
// a report written from the same reading.
func AnalyzeInput(dir string) (Summary, Input, error) {
	in, err := ReadStream(dir)
	if err != nil {
		return Summary{}, in, err
	}
	s, stages := summarize(in)
	if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), s); err != nil {
		return s, in, fmt.Errorf("write summary: %w", err)
	}
	if s.Metrics["blocks"] > 0 {
		if err := results.WriteAutopsy(dir, s.Autopsy); err != nil {
			return s, in, fmt.Errorf("write %s: %w", results.AutopsyFile, err)
		}
		if err := results.WriteStages(dir, stages); err != nil {
			return s, in, fmt.Errorf("write %s: %w", results.StagesFile, err)
		}
	}
	// Without logs/ (deleted, or never there) an earlier findings.json
	// is kept unless the events alone found something.
	if f := FindingsOf(in); f.Logs != nil || len(f.Issues) > 0 {
		if err := results.WriteJSON(filepath.Join(dir, results.FindingsFile), f); err != nil {
			return s, in, fmt.Errorf("write findings: %w", err)
		}
	}
	return s, in, nil
}

// ReadStream reads the run directory dir as ReadInput does, but streams
// sent.csv, replies.csv and txs.csv (plain or .gz) into Input.Tx instead
// of holding their rows, so that memory does not grow with the number of
// transactions (see TxAggregates). The three files are parsed side by
// side, each a bounded queue ahead of the aggregation, which takes them
// in order: sent, replies, transactions.
func ReadStream(dir string) (Input, error) {
	in, err := ReadFiles(dir, results.BlocksFile, results.AdoptionFile, results.MetricsFile, results.ResourceFile, results.EventsFile,
		results.HostFile, results.MempoolFile, results.PrecommitFile, results.HashesFile, results.EvidenceFile, results.CommitCPUFile, results.TxResultsFile)
	if err != nil {
		return in, err
	}
	// A run with perturbations also keeps its sends and committed
	// transactions: the recovery figures (RecoveryOf) match them against
	// the perturbations' windows. Such runs are minutes long; the memory
	// bound holds for every other run.
	if perturbed(in.Events) {
		if in.Sent, err = results.ReadSent(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return in, fmt.Errorf("read %s: %w", results.SentFile, err)
		}
		if in.Txs, err = results.ReadTxs(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return in, fmt.Errorf("read %s: %w", results.TxsFile, err)
		}
	}
	a := NewTxAggregates(in.Run, in.Adoption)
	sent := pipe(func(fn func([]results.Sent) error) error { return results.ScanSent(dir, fn) })
	replies := pipe(func(fn func([]results.Reply) error) error { return results.ScanReplies(dir, fn) })
	txs := pipe(func(fn func([]results.Tx) error) error { return results.ScanTxs(dir, fn) })
	var all []error
	if err := sent.drain(func(r *results.Sent) { a.AddSent(r) }); err != nil {
		all = append(all, fmt.Errorf("read %s: %w", results.SentFile, err))
	}
	for _, f := range []struct {
		name  string
		drain func() error
	}{
		{results.RepliesFile, func() error { return replies.drain(func(r *results.Reply) { a.AddReply(r) }) }},
		{results.TxsFile, func() error { return txs.drain(func(r *results.Tx) { a.AddTx(r) }) }},
	} {
		switch err := f.drain(); {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			in.Missing = append(in.Missing, f.name)
		default:
			all = append(all, fmt.Errorf("read %s: %w", f.name, err))
		}
	}
	// Missing in InputFiles order, as ReadInput gives it.
	slices.SortStableFunc(in.Missing, func(x, y string) int {
		return slices.Index(InputFiles(), x) - slices.Index(InputFiles(), y)
	})
	a.Seal()
	in.Tx = a
	return in, errors.Join(all...)
}

// perturbed reports whether events hold a perturbation.
func perturbed(events []results.Event) bool {
	return slices.ContainsFunc(events, func(e results.Event) bool { return e.Kind == results.EventPerturbBegin })
}

// queue is a file being parsed ahead of its reader, in batches.
type queue[T any] struct {
	batches chan []T
	free    chan []T
	err     chan error
}

// pipe starts scan in a goroutine, handing its batches over a queue of a
// few batches (so memory stays bounded whatever the file's length).
func pipe[T any](scan func(fn func([]T) error) error) *queue[T] {
	const depth = 4
	q := &queue[T]{batches: make(chan []T, depth), free: make(chan []T, depth+2), err: make(chan error, 1)}
	for range depth + 2 {
		q.free <- make([]T, 0, results.ScanBatch)
	}
	go func() {
		defer close(q.batches)
		q.err <- scan(func(b []T) error {
			buf := <-q.free
			q.batches <- append(buf[:0], b...)
			return nil
		})
	}()
	return q
}

// drain calls fn with every row, in order, and returns the scan's error.
func (q *queue[T]) drain(fn func(*T)) error {
	for b := range q.batches {
		for i := range b {
			fn(&b[i])
		}
		q.free <- b
	}
	return <-q.err
}

// ReadInput reads the records of the run directory dir (every file of
// InputFiles), the files in parallel. A missing optional file is listed
// in Input.Missing, not an error.
func ReadInput(dir string) (Input, error) {
	return ReadFiles(dir, InputFiles()...)
}

// InputFiles returns the files of a run directory that ReadInput reads
// besides run.json.
func InputFiles() []string {
	return []string{results.SentFile, results.RepliesFile, results.TxsFile, results.BlocksFile,
		results.AdoptionFile, results.MetricsFile, results.ResourceFile, results.EventsFile, results.HostFile, results.MempoolFile,
		results.PrecommitFile, results.HashesFile, results.EvidenceFile, results.CommitCPUFile, results.TxResultsFile}
}

// ReadFiles reads run.json and the named files (of InputFiles) of the run
// directory dir, in parallel. sent.csv, when named, must be there; any
// other missing file is listed in Input.Missing. metrics.csv is read in
// one pass into a SeriesSet, keeping only the series the figures use.
func ReadFiles(dir string, files ...string) (Input, error) {
	var in Input
	run, err := results.ReadRun(dir)
	if err != nil {
		return in, fmt.Errorf("read run %s: %w", dir, err)
	}
	in.Run = run
	in.Run.Load = run.Load.HostTime(run.Scale()) // the records are the host's (see Input.Run)
	if in.Validators, err = results.ValidatorNames(dir); err != nil {
		return in, fmt.Errorf("read validator keys: %w", err)
	}

	readers := map[string]func() error{
		results.SentFile:      func() (err error) { in.Sent, err = results.ReadSent(dir); return },
		results.RepliesFile:   func() (err error) { in.Replies, err = results.ReadReplies(dir); return },
		results.TxsFile:       func() (err error) { in.Txs, err = results.ReadTxs(dir); return },
		results.BlocksFile:    func() (err error) { in.Blocks, err = results.ReadBlocks(dir); return },
		results.AdoptionFile:  func() (err error) { in.Adoption, err = results.ReadAdoption(dir); return },
		results.MetricsFile:   func() (err error) { in.Metrics, err = ReadSeries(dir); return },
		results.ResourceFile:  func() (err error) { in.Resources, err = results.ReadResources(dir); return },
		results.EventsFile:    func() (err error) { in.Events, err = results.ReadEvents(dir); return },
		results.HostFile:      func() (err error) { in.Host, err = results.ReadHost(dir); return },
		results.MempoolFile:   func() (err error) { in.Mempool, err = results.ReadMempool(dir); return },
		results.PrecommitFile: func() (err error) { in.Precommits, err = results.ReadPrecommits(dir); return },
		results.HashesFile:    func() (err error) { in.Hashes, err = results.ReadHashes(dir); return },
		results.EvidenceFile:  func() (err error) { in.Evidence, err = results.ReadEvidence(dir); return },
		results.CommitCPUFile: func() (err error) { in.CommitCPU, err = results.ReadCommitCPU(dir); return },
		results.TxResultsFile: func() (err error) { in.TxResults, err = results.ReadTxResults(dir); return },
	}
	// Read in InputFiles order, so that Missing is in that order.
	var todo []string
	for _, f := range InputFiles() {
		if slices.Contains(files, f) {
			todo = append(todo, f)
		}
	}
	for _, f := range files {
		if readers[f] == nil {
			return in, fmt.Errorf("read %s: not a file of the run directory analysis reads", f)
		}
	}
	errs := make([]error, len(todo))
	var logErr error
	var wg sync.WaitGroup
	for i, f := range todo {
		wg.Go(func() { errs[i] = readers[f]() })
	}
	wg.Go(func() { in.Logs, logErr = ScanLogs(dir) })
	wg.Wait()
	var all []error
	for i, f := range todo {
		switch err := errs[i]; {
		case err == nil:
		case (f == results.HostFile || f == results.MempoolFile) && errors.Is(err, fs.ErrNotExist):
			// Runs before these files, and runs without /proc sampling.
		case f != results.SentFile && errors.Is(err, fs.ErrNotExist):
			in.Missing = append(in.Missing, f)
		default:
			all = append(all, fmt.Errorf("read %s: %w", f, err))
		}
	}
	if logErr != nil {
		all = append(all, fmt.Errorf("read %s: %w", results.LogsDir, logErr))
	}
	return in, errors.Join(all...)
}
