// Command loadgen runs cometlab's load generator (internal/load) alone
// against one websocket endpoint, writing sent.csv and replies.csv to -out.
// It is what bench/loadgen.sh measures when cmd/cometlab cannot be built,
// and it keeps the generator's figures free of anything else the CLI does.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/results"
)

func main() {
	var cfg load.Config
	out := flag.String("out", "", "directory for sent.csv and replies.csv (empty: log nothing)")
	flag.StringVar(&cfg.Endpoint, "endpoint", "", "websocket RPC endpoint, ws://host:port/websocket")
	flag.IntVar(&cfg.Connections, "c", 1, "connections")
	flag.Float64Var(&cfg.Rate, "r", 1000, "tx/s per connection")
	flag.IntVar(&cfg.Size, "s", 1024, "tx size in bytes")
	flag.DurationVar(&cfg.Duration, "T", 10*time.Second, "duration of the load")
	flag.StringVar(&cfg.Pacing, "pacing", load.PacingEven, "even or burst")
	verbose := flag.Bool("v", false, "log progress to stderr")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	if err := run(cfg, *out, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(cfg load.Config, out string, verbose bool) error {
	var logger *slog.Logger
	if verbose {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	var sent, replies *results.Writer
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		var err error
		if sent, err = results.Create(filepath.Join(out, results.SentFile), results.SentHeader); err != nil {
			return err
		}
		defer sent.Close()
		if replies, err = results.Create(filepath.Join(out, results.RepliesFile), results.RepliesHeader); err != nil {
			return err
		}
		defer replies.Close()
	}
	g, err := load.New(cfg, sent, replies, logger)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = g.Run(ctx)
	st := g.Stats()
	fmt.Printf("sent=%d unsent=%d late=%d replies=%d errors=%d\n", st.Sent, st.Unsent, st.Late, st.Replies, st.Errors)
	if err != nil {
		return err
	}
	if sent != nil {
		if err := sent.Close(); err != nil {
			return err
		}
		return replies.Close()
	}
	return nil
}
