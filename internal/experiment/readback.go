package experiment

import (
	"context"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/analysis"
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
	p := newPrinter(out)
	if err := walkChain(ctx, rd, p, rpc.New(endpoint), id, run.FirstHeight, run.LastHeight); err != nil {
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
