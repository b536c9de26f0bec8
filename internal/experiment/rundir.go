package experiment

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/results"
)

// runDir is an open run directory with its run.json kept up to date.
type runDir struct {
	dir string
	log *slog.Logger // failed writes of run.json by set; nil discards
	mu  sync.Mutex
	run results.Run
	// problems are what went wrong so far, typed (run.json's errors are
	// their strings).
	problems []problem
}

// createRunDir creates dir (which must not hold a run already) and writes
// the first run.json; log receives the writes set could not make.
func createRunDir(dir string, run results.Run, log *slog.Logger) (*runDir, error) {
	if _, err := os.Stat(filepath.Join(dir, results.RunFile)); err == nil {
		return nil, fmt.Errorf("run directory %s already holds a run; choose another --out", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	rd := &runDir{dir: dir, log: log, run: run}
	return rd, rd.update(func(*results.Run) {})
}

func (rd *runDir) path(name string) string { return filepath.Join(rd.dir, name) }

// snapshot returns the run as recorded so far.
func (rd *runDir) snapshot() results.Run {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.run
}

// update applies fn to the run and writes run.json out atomically, both
// under the lock, so that run.json is written in the order of the changes:
// the last write holds every change.
func (rd *runDir) update(fn func(r *results.Run)) error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	fn(&rd.run)
	return results.WriteJSON(rd.path(results.RunFile), rd.run)
}

// set records a change to the run on the way (a node list, a time, a
// height) in run.json, and logs a failed write instead of returning it: the
// change stays in memory, and the next write that succeeds carries it — at
// the latest the one of the run's status at its end (end), whose failure
// fails the run.
func (rd *runDir) set(fn func(r *results.Run)) {
	if err := rd.update(fn); err != nil && rd.log != nil {
		rd.log.Warn("run.json not written; the next write will carry the change", "path", rd.path(results.RunFile), "err", err)
	}
}

// end records how the run ended in run.json; unlike set, it returns a
// failed write, as nothing would carry the change any more.
func (rd *runDir) end(fn func(r *results.Run)) error {
	if err := rd.update(fn); err != nil {
		return fmt.Errorf("record the end of the run in %s: %w", results.RunFile, err)
	}
	return nil
}

// hostInfo describes this machine.
func hostInfo() results.Host {
	h := results.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	h.MemBytes, h.Kernel, h.CPUModel = hostMemory(), hostKernel(), hostCPUModel()
	return h
}

// DefaultRunDir is runs/<run-id> under the current directory.
func DefaultRunDir(id string) string { return filepath.Join("runs", id) }

// since formats a duration for progress lines.
func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }

// validatorNames maps the testnet's validator addresses to node names,
// from the validator keys in the run directory's node homes (empty for a
// chain cometlab did not start); a key that cannot be read is logged.
func (r *runDir) validatorNames() map[string]string {
	names, err := results.ValidatorNames(r.dir)
	if err != nil && r.log != nil {
		r.log.Warn("precommits name no validator", "err", err)
	}
	return names
}

// walkFiles are the files a walk of the chain writes: txs.csv,
// blocks.csv, precommits.csv and evidence.csv, and tx_results.csv when
// it reads the app's verdicts.
type walkFiles struct {
	txs, blocks, votes, evidence, results *results.Writer
}

// createWalkFiles creates the walk's files (replacing them), with
// tx_results.csv when verdicts is set (a walk of the user's own or an SDK
// chain's transactions); when one cannot be created, those created before
// it are closed.
func (r *runDir) createWalkFiles(verdicts bool) (*walkFiles, error) {
	f := &walkFiles{}
	type file struct {
		w            **results.Writer
		name, header string
	}
	files := []file{
		{&f.txs, results.TxsFile, results.TxsHeader},
		{&f.blocks, results.BlocksFile, results.BlocksHeader},
		{&f.votes, results.PrecommitFile, results.PrecommitHeader},
		{&f.evidence, results.EvidenceFile, results.EvidenceHeader},
	}
	if verdicts {
		files = append(files, file{&f.results, results.TxResultsFile, results.TxResultsHeader})
	}
	for _, c := range files {
		w, err := results.Create(r.path(c.name), c.header)
		if err != nil {
			f.close()
			return nil, err
		}
		*c.w = w
	}
	return f, nil
}

// config sets cfg's precommit and evidence writers and the validators'
// names, for a walk into f.
func (f *walkFiles) config(r *runDir, cfg collect.WalkConfig) collect.WalkConfig {
	cfg.Precommits, cfg.Names, cfg.Evidence, cfg.Results = f.votes, r.validatorNames(), f.evidence, f.results
	return cfg
}

// close closes every file created (a no-op for one closed already).
func (f *walkFiles) close() error {
	var errs []error
	for _, w := range []*results.Writer{f.txs, f.blocks, f.votes, f.evidence, f.results} {
		if w != nil {
			errs = append(errs, w.Close())
		}
	}
	return errors.Join(errs...)
}
