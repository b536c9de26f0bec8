package experiment

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// ReadBack walks the chain of an existing run again — from the endpoint in
// its run.json, or from endpoint when given (another node of the same
// chain) — rewrites txs.csv and blocks.csv, and recomputes the summary and
// the report. The chain must still be running (e.g. a `testnet up`
// testnet, or a user's chain).
func ReadBack(ctx context.Context, dir, endpoint string, out io.Writer) (Result, error) {
	run, err := results.ReadRun(dir)
	if err != nil {
		return Result{}, err
	}
	id, err := uuid.Parse(run.ID)
	if err != nil {
		return Result{}, fmt.Errorf("run.json: id: %w", err)
	}
	if endpoint == "" {
		endpoint = run.Endpoint
	}
	if run.FirstHeight == 0 || run.LastHeight < run.FirstHeight {
		return Result{}, fmt.Errorf("run.json holds no height range to read (first %d, last %d)", run.FirstHeight, run.LastHeight)
	}
	rd := &runDir{dir: dir, run: run}
	p := NewPrinter(out)
	if err := walkChain(ctx, rd, p, rpc.New(endpoint), id, run.Load.Txs != "", run.FirstHeight, run.LastHeight); err != nil {
		return Result{}, err
	}
	sum, in, err := analysis.AnalyzeInput(dir)
	if err != nil {
		return Result{}, err
	}
	if err := report.Write(dir, sum, report.Options{Input: &in}); err != nil {
		return Result{}, err
	}
	return Result{Dir: dir, Run: rd.run, Summary: sum}, nil
}

// walkChain reads heights first…last of the run's chain into the walk's
// files (replacing them); hashed says the run sent the user's own
// transactions, found by hash (sent.csv's), whose verdicts the app gives
// (tx_results.csv).
func walkChain(ctx context.Context, rd *runDir, out *Printer, target *rpc.Client, id [16]byte, hashed bool, first, last int64) error {
	files, err := rd.createWalkFiles(hashed)
	if err != nil {
		return err
	}
	defer files.close()
	var byHash map[[32]byte]collect.HashedSend
	if hashed {
		sent, err := results.ReadSent(rd.dir)
		if err != nil {
			return fmt.Errorf("read back: %w", err)
		}
		if byHash, err = collect.HashIndex(sent); err != nil {
			return fmt.Errorf("read back: %w", err)
		}
		if byHash == nil {
			byHash = map[[32]byte]collect.HashedSend{} // nothing sent: nothing is the run's
		}
	}
	out.Phase("read-back: walking heights %d…%d", first, last)
	st, err := collect.Walk(ctx, files.config(rd, collect.WalkConfig{Client: target, From: first, To: last, RunID: id, ByHash: byHash,
		Progress: func(h int64) { out.Status("read-back: height %d/%d", h, last) }}), files.txs, files.blocks)
	if err != nil {
		if strings.Contains(err.Error(), "is not available, lowest height is") {
			return fmt.Errorf("read back: %w (the node pruned the run's first blocks before cometlab read them after the load: "+
				"keep more blocks than the run's heights, e.g. a larger app.retain_blocks)", err)
		}
		return fmt.Errorf("read back: %w", err)
	}
	out.Phase("read-back: %s", st)
	return files.close()
}
