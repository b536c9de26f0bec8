package main

import (
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/web"
)

// defaultListen is serve's address: loopback only.
const defaultListen = "127.0.0.1:8080"

func newServeCmd(st *state) *cobra.Command {
	var (
		hf     historyFlags
		listen string
		roots  []string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Browse the history index in a web browser: runs, reports, comparisons, trends, change points",
		Long: `Serve a local, read-only web view of the history index: the runs with
filters (as cometlab history's), each run's key figures and its report,
any two runs compared (cometlab compare's engine), a figure's trend along a
series with its change points and release tags, the change points of every
series, newest and largest first, and the QA reports. Each page's data is
JSON at the same address under /api (/api/runs?release=v0.38, …).

Pages are rendered by cometlab from templates built into it, with no
script and nothing from the network: it works offline. Files are served only
from directories the index holds.

It listens on loopback (` + defaultListen + `) and answers only requests
addressed to a loopback name. --listen with another address serves anyone
who can reach it, with a warning: the runs' files are then readable by
them. --root DIR first adds the run, sweep, search and A/B directories under
DIR to the index (as 'history rebuild' reads them, without emptying it).
Ctrl-C stops it, letting the requests under way finish.`,
		Example: `  cometlab serve
  cometlab serve --root runs --root sweeps
  cometlab serve --index ci/history.db --listen 127.0.0.1:9000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			host, _, err := net.SplitHostPort(listen)
			if err != nil {
				return exitcode.With(fmt.Errorf("--listen %q: %w", listen, err), exitcode.Usage)
			}
			loopback := isLoopback(host)
			if !loopback {
				fmt.Fprintf(st.stderr, "serve: warning: --listen %s is not a loopback address: anyone who can reach it can read every indexed run's files\n", listen)
			}
			x, err := hf.open(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer x.Close()
			if len(roots) > 0 {
				f := history.Walk(roots)
				if err := x.Put(cmd.Context(), f.Runs); err != nil {
					return err
				}
				printSkipped(st.stderr, f.Skipped)
				fmt.Fprintf(st.stdout, "serve: %d runs indexed from %s\n", len(f.Runs), strings.Join(roots, ", "))
			}
			detect, _ := changeMethods()
			srv, err := web.New(web.Config{Index: x, Detect: detect, Compare: compare.Options{Thresholds: compare.DefaultThresholds(), Seed: 1},
				Load: compare.LoadOptions{IgnoreConfig: cometbft.RunSpecificConfigKeys()}, LoopbackOnly: loopback,
				Logger: slog.New(slog.NewTextHandler(st.stderr, nil))})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintf(st.stdout, "serve: the history index %s at http://%s/ (Ctrl-C stops)\n", x.Path(), ln.Addr())
			if err := web.Serve(cmd.Context(), ln, srv.Handler()); err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintln(st.stdout, "serve: stopped")
			return nil
		},
	}
	hf.registerIndex(cmd.Flags())
	cmd.Flags().StringVar(&listen, "listen", defaultListen, "the address to serve on, HOST:PORT (a port of 0 picks a free one); not loopback: served to anyone who can reach it")
	cmd.Flags().StringArrayVar(&roots, "root", nil, "first add the directories under this one to the index (repeatable; as history rebuild's, without emptying the index)")
	return cmd
}

// isLoopback says whether a listen host is a loopback name or address
// ("" and 0.0.0.0, every address, are not).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
