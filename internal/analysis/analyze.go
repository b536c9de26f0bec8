package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/cometlab/cometlab/internal/results"
)

// Analyze reads the run directory dir, summarises it and writes
// dir/summary.json atomically. run.json and sent.csv must be there; a
// missing replies.csv, txs.csv, blocks.csv or adoption.csv (or its .gz)
// means that nothing was gathered, which the summary's Notes say.
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

// ReadInput reads the records of the run directory dir, the files in
// parallel. A missing optional file is listed in Input.Missing, not an
// error.
func ReadInput(dir string) (Input, error) {
	var in Input
	run, err := results.ReadRun(dir)
	if err != nil {
		return in, fmt.Errorf("read run %s: %w", dir, err)
	}
	in.Run = run

	type read struct {
		file     string
		optional bool
		fn       func() error
	}
	reads := []read{
		{results.SentFile, false, func() (err error) { in.Sent, err = results.ReadSent(dir); return }},
		{results.RepliesFile, true, func() (err error) { in.Replies, err = results.ReadReplies(dir); return }},
		{results.TxsFile, true, func() (err error) { in.Txs, err = results.ReadTxs(dir); return }},
		{results.BlocksFile, true, func() (err error) { in.Blocks, err = results.ReadBlocks(dir); return }},
		{results.AdoptionFile, true, func() (err error) { in.Adoption, err = results.ReadAdoption(dir); return }},
	}
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for i, r := range reads {
		wg.Go(func() { errs[i] = r.fn() })
	}
	wg.Wait()
	var all []error
	for i, r := range reads {
		switch err := errs[i]; {
		case err == nil:
		case r.optional && errors.Is(err, fs.ErrNotExist):
			in.Missing = append(in.Missing, r.file)
		default:
			all = append(all, fmt.Errorf("read %s: %w", r.file, err))
		}
	}
	return in, errors.Join(all...)
}
