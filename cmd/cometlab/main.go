// Command cometlab is a performance-QA lab for CometBFT chains: it runs
// testnets of real CometBFT nodes, drives open-loop load into them, reads
// back what the chain committed and writes a QA report.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(runMain(0)) }

// runMain is main's work and its exit code, with maxRemeasures the
// series' disturbance budget (state.maxRemeasures: 0, the policy's, in
// the product; the tests that start cometlab as a process of its own and
// share the host with other tests keep every run: -1).
func runMain(maxRemeasures int) int {
	// The first interrupt (Ctrl-C or SIGTERM) stops the load and lets the
	// run account for what was sent; a second one stops everything at once.
	// Node processes are stopped and reaped either way.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	hard, hardCancel := context.WithCancel(context.Background())
	go func() {
		<-sigs
		cancel()
		<-sigs
		hardCancel()
	}()
	st := &state{stdout: os.Stdout, stderr: os.Stderr, args: os.Args[1:], hard: hard, maxRemeasures: maxRemeasures}
	return execute(ctx, st)
}
