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
	in, err := ReadInput(dir)
	if err != nil {
		return Summary{}, err
	}
	s := Summarize(in)
	if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), s); err != nil {
		return s, fmt.Errorf("write summary: %w", err)
	}
	return s, nil
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
		results.AdoptionFile, results.MetricsFile, results.ResourceFile, results.EventsFile}
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

	readers := map[string]func() error{
		results.SentFile:     func() (err error) { in.Sent, err = results.ReadSent(dir); return },
		results.RepliesFile:  func() (err error) { in.Replies, err = results.ReadReplies(dir); return },
		results.TxsFile:      func() (err error) { in.Txs, err = results.ReadTxs(dir); return },
		results.BlocksFile:   func() (err error) { in.Blocks, err = results.ReadBlocks(dir); return },
		results.AdoptionFile: func() (err error) { in.Adoption, err = results.ReadAdoption(dir); return },
		results.MetricsFile:  func() (err error) { in.Metrics, err = ReadSeries(dir); return },
		results.ResourceFile: func() (err error) { in.Resources, err = results.ReadResources(dir); return },
		results.EventsFile:   func() (err error) { in.Events, err = results.ReadEvents(dir); return },
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
	var wg sync.WaitGroup
	for i, f := range todo {
		wg.Go(func() { errs[i] = readers[f]() })
	}
	wg.Wait()
	var all []error
	for i, f := range todo {
		switch err := errs[i]; {
		case err == nil:
		case f != results.SentFile && errors.Is(err, fs.ErrNotExist):
			in.Missing = append(in.Missing, f)
		default:
			all = append(all, fmt.Errorf("read %s: %w", f, err))
		}
	}
	return in, errors.Join(all...)
}
