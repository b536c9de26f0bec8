package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
)

// TestLoadCollectFlags: load's collection flags (registerLoad, as
// newLoadCmd registers them) bind into experiment.Collect as run's do, the
// deprecated --metrics-all as --metrics all.
func TestLoadCollectFlags(t *testing.T) {
	def := experiment.Collect{ScrapeInterval: 1e9, Metrics: experiment.MetricsDefault, MinFreeDisk: 1 << 30}
	for _, tc := range []struct {
		args []string
		want experiment.Collect
		err  string
	}{
		{nil, def, ""},
		{[]string{"--metrics", "all"}, func() experiment.Collect { c := def; c.Metrics = experiment.MetricsAll; return c }(), ""},
		{[]string{"--metrics-all"}, func() experiment.Collect { c := def; c.Metrics = experiment.MetricsAll; return c }(), ""},
		{[]string{"--metrics", "none"}, func() experiment.Collect { c := def; c.Metrics = experiment.MetricsNone; return c }(), ""},
		{[]string{"--scrape-interval", "250ms", "--commit-samples=false", "--read-during-load=false", "--min-free-disk", "0", "--prometheus", "http://127.0.0.1:9090"},
			experiment.Collect{ScrapeInterval: 25e7, Metrics: experiment.MetricsDefault, NoCommitSamples: true, ReadAfterLoad: true,
				MinFreeDisk: -1, Prometheus: "http://127.0.0.1:9090"}, ""},
		{[]string{"--min-free-disk", "512MiB"}, func() experiment.Collect { c := def; c.MinFreeDisk = 512 << 20; return c }(), ""},
		{[]string{"--metrics-all", "--metrics", "none"}, experiment.Collect{}, "--metrics-all and --metrics none contradict"},
		{[]string{"--scrape-interval", "0s"}, experiment.Collect{}, "--scrape-interval 0s: want a positive duration"},
		{[]string{"--min-free-disk", "lots"}, experiment.Collect{}, "--min-free-disk"},
		{[]string{"--no-resources"}, experiment.Collect{}, "unknown flag: --no-resources"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var cf collectFlags
			fs := pflag.NewFlagSet("load", pflag.ContinueOnError)
			fs.SetOutput(&strings.Builder{})
			cf.registerLoad(fs)
			err := fs.Parse(tc.args)
			var c experiment.Collect
			if err == nil {
				c, err = cf.collect()
			}
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case c != tc.want:
				t.Errorf("collect %+v, want %+v", c, tc.want)
			}
		})
	}
}

// TestLoadCollectRefused: the load command says --metrics-all is
// deprecated and passes it on as --metrics all; what a chain cometlab does
// not run cannot collect is refused (exit 2) before anything is sent.
func TestLoadCollectRefused(t *testing.T) {
	ep := []string{"load", "--endpoint", "ws://127.0.0.1:1/websocket", "--out", t.TempDir() + "/run"}
	murl := []string{"--metrics-url", "http://127.0.0.1:1/metrics"}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--metrics-all"}, []string{"Flag --metrics-all has been deprecated, use --metrics all", "--metrics all: the load knows no node's metrics endpoint"}},
		{[]string{"--prometheus", "http://127.0.0.1:1"}, []string{"--prometheus: the load knows no node's metrics endpoint"}},
		{append([]string{"--prometheus", "http://127.0.0.1:1", "--readback=false"}, murl...), []string{"--prometheus: with --readback=false"}},
		{[]string{"--prometheus", "http://127.0.0.1:1", "--metrics", "none"}, []string{"--prometheus and --metrics none contradict"}},
		{[]string{"--scrape-interval", "-1s"}, []string{"--scrape-interval -1s: want a positive duration"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := run(t, append(ep, tc.args...)...)
			if code != exitcode.Usage {
				t.Errorf("exit %d, want %d", code, exitcode.Usage)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q, want %q", stderr, w)
				}
			}
		})
	}
}
