package experiment

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestCheckChain: what of Collect a load of a chain cometlab does not run
// cannot honour is refused as bad input, naming the flag; the rest passes.
func TestCheckChain(t *testing.T) {
	targets := []collect.Target{{Name: "n1", URL: "http://127.0.0.1:26660/metrics"}}
	for _, tc := range []struct {
		name    string
		o       LoadOptions
		targets []collect.Target
		want    string // "" means accepted
	}{
		{"defaults", LoadOptions{Readback: true}, nil, ""},
		{"every collect setting with targets", LoadOptions{Readback: true, Collect: Collect{Metrics: MetricsAll, NoCommitSamples: true,
			MinFreeDisk: -1, ReadAfterLoad: true, Prometheus: "http://127.0.0.1:9090"}}, targets, ""},
		{"metrics none", LoadOptions{Collect: Collect{Metrics: MetricsNone}}, targets, ""},
		{"bad metrics", LoadOptions{Collect: Collect{Metrics: "some"}}, targets, `metrics "some"`},
		{"negative interval", LoadOptions{Collect: Collect{ScrapeInterval: -1}}, targets, "scrape interval"},
		{"metrics all without endpoints", LoadOptions{Collect: Collect{Metrics: MetricsAll}}, nil, "--metrics all"},
		{"prometheus without endpoints", LoadOptions{Readback: true, Collect: Collect{Prometheus: "http://p:9090"}}, nil, "--prometheus: the load knows no node"},
		{"prometheus and metrics none", LoadOptions{Readback: true, Collect: Collect{Prometheus: "http://p:9090", Metrics: MetricsNone}}, targets, "contradict"},
		{"prometheus without read-back", LoadOptions{Collect: Collect{Prometheus: "http://p:9090"}}, targets, "--readback=false"},
		{"time-scaled", LoadOptions{Readback: true, Manifest: manifest.Resolved{TimeScale: 4}}, nil, "time_scale 4: the chain's nodes were not started by this run"},
		{"real time", LoadOptions{Readback: true, Manifest: manifest.Resolved{TimeScale: 1}}, nil, ""},
		{"time scale auto", LoadOptions{Readback: true, Manifest: manifest.Resolved{TimeScale: 1, TimeScaleAuto: true}}, nil, `time_scale "auto"`},
		{"read from after the load", LoadOptions{Readback: true, ReadFrom: "127.0.0.1:26667", Collect: Collect{ReadAfterLoad: true}}, nil, "--read-during-load=false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkChain(tc.o, tc.targets)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %v, want one with %q", err, tc.want)
			default:
				if code, _ := exitcode.Of(err); code != exitcode.Usage {
					t.Errorf("exit code %d, want %d (usage)", code, exitcode.Usage)
				}
			}
		})
	}
}

// TestChainPipelineCollect: every field of Collect reaches the pipeline of
// a load (newChainPipeline).
func TestChainPipelineCollect(t *testing.T) {
	rd, err := createRunDir(t.TempDir(), results.Run{ID: "r", Status: results.StatusRunning}, nil)
	if err != nil {
		t.Fatal(err)
	}
	targets := []collect.Target{{Name: "n1", URL: "http://127.0.0.1:26660/metrics"}}
	names := func(p *pipeline) []string {
		var ns []string
		for _, h := range p.hooks {
			ns = append(ns, h.name)
		}
		return ns
	}
	build := func(c Collect) *pipeline {
		o := LoadOptions{Endpoint: "http://127.0.0.1:26657", Readback: true, Collect: c}
		return newChainPipeline(beginRun("", nil, nil), rd, NewPrinter(nil), o, "ws://127.0.0.1:26657/websocket", "target", targets)
	}

	p := build(Collect{})
	if !p.read.live || p.col.noCommitSamples || p.col.scrapeCfg.All || len(p.col.scrape) != 1 {
		t.Errorf("defaults: live %v, no commit samples %v, all %v, scrape %v", p.read.live, p.col.noCommitSamples, p.col.scrapeCfg.All, p.col.scrape)
	}
	if got := names(p); !slices.Equal(got, []string{"disk guard", "progress"}) {
		t.Errorf("default hooks %q", got)
	}
	p = build(Collect{ReadAfterLoad: true, NoCommitSamples: true, Metrics: MetricsAll, MinFreeDisk: -1})
	if p.read.live || !p.col.noCommitSamples || !p.col.scrapeCfg.All || len(p.col.scrape) != 1 {
		t.Errorf("set: live %v, no commit samples %v, all %v, scrape %v", p.read.live, p.col.noCommitSamples, p.col.scrapeCfg.All, p.col.scrape)
	}
	if got := names(p); !slices.Equal(got, []string{"disk guard (off)", "progress"}) {
		t.Errorf("hooks with the disk guard off %q", got)
	}
	if p := build(Collect{Metrics: MetricsNone}); len(p.col.scrape) != 0 {
		t.Errorf("metrics none: scrape %v", p.col.scrape)
	}
	p = build(Collect{Prometheus: "http://127.0.0.1:9090"})
	if len(p.col.scrape) != 0 {
		t.Errorf("prometheus: scrape %v, want none (read from the server)", p.col.scrape)
	}
	if got := names(p); !slices.Equal(got, []string{"prometheus", "disk guard", "progress"}) {
		t.Errorf("hooks with prometheus %q", got)
	}
}

// TestPlanHooks: the phase plan hands each hook the run's plan in order,
// and its changes stand; an error stops the phase.
func TestPlanHooks(t *testing.T) {
	p := &pipeline{}
	p.chain.endpoint = "ws://node"
	var order []string
	p.hooks = []hook{
		{name: "gateway", plan: func(_ context.Context, pl *runPlan) error {
			order = append(order, "gateway:"+pl.chain.endpoint)
			pl.chain.endpoint = "ws://gateway"
			pl.col.scrape = append(pl.col.scrape, collect.Target{Name: "gateway"})
			return nil
		}},
		{name: "no plan"},
		{name: "second", plan: func(_ context.Context, pl *runPlan) error {
			order = append(order, "second:"+pl.chain.endpoint)
			return nil
		}},
	}
	if err := p.planHooks(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"gateway:ws://node", "second:ws://gateway"}) || p.chain.endpoint != "ws://gateway" || len(p.col.scrape) != 1 {
		t.Errorf("order %q, endpoint %s, scrape %v", order, p.chain.endpoint, p.col.scrape)
	}
	boom := errors.New("boom")
	p.hooks = []hook{{plan: func(context.Context, *runPlan) error { return boom }},
		{plan: func(context.Context, *runPlan) error { t.Error("a plan after a failed one ran"); return nil }}}
	if err := p.planHooks(t.Context()); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
}

// TestCollectCheck: the one check of the collection options returns every
// problem at once, each a *CollectError naming its setting (and the one it
// contradicts), which a command names by its flags.
func TestCollectCheck(t *testing.T) {
	if err := (Collect{Metrics: MetricsAll, ScrapeInterval: time.Second, Prometheus: "http://p:9090"}).Check(); err != nil {
		t.Fatalf("good options refused: %v", err)
	}
	err := Collect{Metrics: MetricsNone, ScrapeInterval: -time.Second, Prometheus: "http://p:9090"}.Check()
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *CollectError
		if !errors.As(e, &ce) {
			t.Fatalf("%v: not a *CollectError", e)
		}
		got = append(got, ce.Named("--"+ce.Setting, "--"+ce.With))
	}
	want := []string{"--scrape interval -1s: want a positive duration", "--prometheus and --metrics none contradict each other"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if code, _ := exitcode.Of(err); code != exitcode.Usage {
		t.Errorf("exit code %d, want %d", code, exitcode.Usage)
	}
	if err := (Collect{Metrics: "some"}).Check(); err == nil || !strings.Contains(err.Error(), `metrics "some": want default, all or none`) {
		t.Errorf("bad metrics: %v", err)
	}
}
