package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/experiment"
)

func newReadbackCmd(st *state) *cobra.Command {
	var endpoint string
	cmd := &cobra.Command{
		Use:   "readback RUN_DIR",
		Short: "Walk a run's chain again over RPC and recompute its summary and report",
		Long: `Walk the heights of an existing run again over RPC — from the endpoint in
its run.json, or --endpoint (another node of the same, still running chain)
— rewrite txs.csv and blocks.csv, and recompute summary.json and the report.
Useful after a read-back that failed, and to time the read-back alone.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			res, err := experiment.ReadBack(cmd.Context(), args[0], endpoint, st.stderr)
			if err != nil {
				return err
			}
			res.Run.Status = "" // the run's own status is not this command's outcome
			err = printResult(st, res, nil)
			st.stderr.Write([]byte("readback: " + time.Since(start).Round(time.Millisecond).String() + " in all\n"))
			return err
		},
	}
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "RPC endpoint of a node of the run's chain (default: the one in run.json)")
	return cmd
}
