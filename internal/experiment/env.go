package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
)

// Env is what every mode that starts or watches nodes needs besides what
// to run (run, sweep, saturate, ab, load, testnet up, deploy), built once
// from the flags (cmd/cometlab/collect.go).
type Env struct {
	// Fetcher obtains node binaries.
	Fetcher *cometbft.Fetcher
	// Out receives progress (a terminal gets a live status line).
	Out io.Writer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Version is cometlab's own version, recorded in run.json.
	Version string
	// StartTimeout bounds the wait for every node to advance two heights;
	// 0 means 90 s.
	StartTimeout time.Duration
	// Hard ends the read-back and clean-up too (a second interrupt); nil
	// means they always run to the end.
	Hard context.Context
	// SSHArgs are extra ssh options for every host of a manifest whose
	// nodes are on [host.*] hosts, which each run of it deploys (see
	// runOnHosts; deploy.Plan.SSHArgs).
	SSHArgs string
}

// Collect says what a run gathers besides the chain: the same options for
// every mode that loads a chain (run, sweep, saturate, ab, load; for load
// see LoadOptions).
type Collect struct {
	// ScrapeInterval is how often node metrics and process resources are
	// sampled; 0 means 1 s.
	ScrapeInterval time.Duration
	// Metrics selects the node series kept in metrics.csv: "default" (or
	// ""), "all", or "none" (no scrape).
	Metrics string
	// NoResources turns /proc sampling (resources.csv) off.
	NoResources bool
	// NoCommitSamples turns off what is asked of every node at each of its
	// commits: its mempool (mempool.csv, one RPC request per node and
	// height) and its process's CPU (commitcpu.csv). The autopsy's
	// mempool_full then reads the scrapes alone.
	NoCommitSamples bool
	// Prometheus, when set, is the URL of a Prometheus server that scrapes
	// the nodes: metrics.csv is read from it after the read-back instead of
	// scraped.
	Prometheus string
	// MinFreeDisk is the disk guard's minimum free space (bytes) on the
	// run directory's file system: below it the load stops and the run is
	// partial. 0 means DefaultMinFreeDisk; below 0 turns the guard off.
	MinFreeDisk int64
	// ReadAfterLoad reads every block after the load instead of while it
	// runs (no live reader, no live line): to measure what the live
	// read-back costs, or to keep every RPC request off the nodes during
	// the load.
	ReadAfterLoad bool
	// DataWalkInterval, when set, walks every node's data directory that
	// often (resources.csv's data_bytes) instead of the adaptive rule's
	// (at most 0.01 % of a core per node, which on a short run may walk
	// once): the storage matrix sets it to measure growth per hour.
	DataWalkInterval time.Duration
}

// Metrics modes (Collect.Metrics, --metrics).
const (
	MetricsDefault = "default" // the series the report plots, and a few more
	MetricsAll     = "all"     // every series, histogram buckets included
	MetricsNone    = "none"    // no scrape
)

// Check refuses collection options no run can honour, as bad input: every
// problem at once (errors.Join), each a *CollectError naming its setting,
// which a command names by its flag.
func (c Collect) Check() error {
	var errs []error
	bad := func(setting, format string, a ...any) {
		errs = append(errs, &CollectError{Setting: setting, Msg: fmt.Sprintf(format, a...)})
	}
	contradict := func(setting, with, value string) {
		errs = append(errs, &CollectError{Setting: setting, With: with, Msg: value + " contradict each other"})
	}
	switch c.Metrics {
	case "", MetricsDefault, MetricsAll, MetricsNone:
	default:
		bad(SettingMetrics, "%q: want %s, %s or %s", c.Metrics, MetricsDefault, MetricsAll, MetricsNone)
	}
	if c.ScrapeInterval < 0 {
		bad(SettingScrapeInterval, "%s: want a positive duration", c.ScrapeInterval)
	}
	if c.Prometheus != "" && c.Metrics == MetricsNone {
		contradict(SettingPrometheus, SettingMetrics, MetricsNone)
	}
	return errors.Join(errs...)
}

// The settings of Collect a CollectError names.
const (
	SettingMetrics        = "metrics"
	SettingScrapeInterval = "scrape interval"
	SettingPrometheus     = "prometheus"
)

// CollectError is a collection setting no run can honour: the setting
// (SettingMetrics, …), the other one it contradicts (With, or ""), and
// what is wrong. It carries the usage exit code.
type CollectError struct {
	Setting, With, Msg string
}

func (e *CollectError) Error() string { return e.Named(e.Setting, e.With) }

// Named is the error with its settings named setting and with (a
// command's flags for them).
func (e *CollectError) Named(setting, with string) string {
	if e.With != "" {
		return setting + " and " + with + " " + e.Msg
	}
	return setting + " " + e.Msg
}

// ExitCode is the usage code: nothing was run.
func (e *CollectError) ExitCode() int { return exitcode.Usage }
