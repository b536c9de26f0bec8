package web

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
)

// benchPages are the pages BenchmarkPages times with 1,000 runs indexed.
var benchPages = []struct{ name, target string }{
	{"runs", "/runs"},
	{"runs_all", "/runs?limit=0"},
	{"api_runs_all", "/api/runs?limit=0"},
	{"runs_filtered", "/runs?release=v0.38.30&status=complete"},
	{"trend", "/trend?figure=committed_tps"},
	{"trend_release", "/trend?figure=block_latency_p50_ms&by=release"},
	{"changes", "/changes"},
	{"changes_all", "/changes?figures=all"},
	{"qa", "/qa"},
}

// benchHandler is a handler over an index of 1,000 synthetic runs.
func benchHandler(b *testing.B) (http.Handler, string) {
	x := openIndex(b)
	root := b.TempDir()
	if err := x.Put(context.Background(), synthRuns(1000, filepath.Join(root, "runs"))); err != nil {
		b.Fatal(err)
	}
	return newHandler(b, x), root
}

// BenchmarkRunsPage is the runs list (the newest 100, and all 1,000)
// with 1,000 runs indexed; goal ≤ 300 ms a page.
func BenchmarkRunsPage(b *testing.B) {
	h, _ := benchHandler(b)
	for _, target := range []string{"/runs", "/runs?limit=0"} {
		b.Run(url.QueryEscape(target), func(b *testing.B) {
			for b.Loop() {
				if code, _ := get(b, h, target); code != http.StatusOK {
					b.Fatalf("%s: %d", target, code)
				}
			}
		})
	}
}

// BenchmarkPages is every page of benchPages, with 1,000 runs indexed.
func BenchmarkPages(b *testing.B) {
	h, _ := benchHandler(b)
	for _, p := range benchPages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				if code, _ := get(b, h, p.target); code != http.StatusOK {
					b.Fatalf("%s: %d", p.target, code)
				}
			}
		})
	}
}

// BenchmarkChangesFirst is the change-point page as first asked after a
// run was added (a new server each time: nothing kept), with 1,000 runs
// indexed: the gate's figures, and every judged figure.
func BenchmarkChangesFirst(b *testing.B) {
	x := openIndex(b)
	if err := x.Put(context.Background(), synthRuns(1000, filepath.Join(b.TempDir(), "runs"))); err != nil {
		b.Fatal(err)
	}
	for _, target := range []string{"/changes", "/changes?figures=all"} {
		b.Run(url.QueryEscape(target), func(b *testing.B) {
			for b.Loop() {
				if code, _ := get(b, newHandler(b, x), target); code != http.StatusOK {
					b.Fatalf("%s: %d", target, code)
				}
			}
		})
	}
}
