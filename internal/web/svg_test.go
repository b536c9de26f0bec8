package web

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// stepTrend is the fixture's series as a trend: twelve points, a new
// release every four, a change point at the seventh, an interval on one.
func stepTrend() history.Trend {
	t := history.Trend{SeriesID: "3fa7773bd2be", Figure: "committed_tps", Title: "Committed rate", Unit: "tx/s", Better: "higher",
		Order: history.ByRelease, Detected: true}
	for i, v := range step {
		rel := []string{"v0.38.26", "v0.38.27", "v0.40.0"}[i/4]
		t.Points = append(t.Points, history.Point{Dir: "/runs/r" + string(rune('a'+i)), Created: time.Date(2026, 11, 1+i, 10, 0, 0, 0, time.UTC),
			Release: rel, Label: rel, Value: v})
	}
	t.Points[3].Interval = &history.Interval{Lo: 196, Hi: 205}
	t.ChangePoints = []history.ChangePoint{{Index: 6, P: 6.7e-8, Magnitude: -0.1, Before: 200, After: 180, Window: 50, MaxP: 0.001, MinPoints: 3}}
	return t
}

// TestTrendSVG: the plot is well-formed XML with a point per run (each a
// link), one change line, the levels either side and a tag per release;
// the whole of it is kept under review as testdata/trend.svg.
func TestTrendSVG(t *testing.T) {
	svg := trendSVG(stepTrend(), newDictionary())
	count := map[string]int{}
	links := 0
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					count[a.Value]++
				}
				if a.Name.Local == "href" && strings.HasPrefix(a.Value, "/run?dir=") {
					links++
				}
			}
		}
	}
	if count["point"] != 12 || links != 12 || count["change"] != 1 || count["change-label"] != 1 || count["level"] != 2 || count["release"] != 3 {
		t.Errorf("classes %v, %d links", count, links)
	}
	if !strings.Contains(svg, "200.0 → 180.0 (-10.0 %)") {
		t.Errorf("no change label")
	}
	resultstest.Golden(t, filepath.Join("testdata", "trend.svg"), []byte(svg))
	empty := trendSVG(history.Trend{Figure: "committed_tps"}, newDictionary())
	if err := xml.Unmarshal([]byte(empty), new(struct{})); err != nil || !strings.Contains(empty, "no points") {
		t.Errorf("empty trend: %v\n%s", err, empty)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{178, 206, []float64{170, 180, 190, 200, 210}},
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0.97, 1.01, []float64{0.97, 0.98, 0.99, 1, 1.01}},
		{-3, 7, []float64{-4, -2, 0, 2, 4, 6, 8}},
	} {
		got := niceTicks(c.lo, c.hi, 5)
		if len(got) < 2 || got[0] > c.lo || got[len(got)-1] < c.hi || (c.want != nil && !slices.EqualFunc(got, c.want, func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })) {
			t.Errorf("niceTicks(%g, %g) = %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}

// TestTrendSVGRoute: /trend.svg is the page's plot, as an SVG file.
func TestTrendSVGRoute(t *testing.T) {
	x, _ := fixture(t)
	h := newHandler(t, x)
	code, body := get(t, h, "/trend.svg?figure=committed_tps&series=3fa7&by=release")
	if code != http.StatusOK || !strings.HasPrefix(body, "<svg") || !strings.Contains(body, `class="change"`) {
		t.Errorf("%d\n%s", code, body)
	}
	if code, _ := get(t, h, "/trend.svg?figure=saturation_tps"); code != http.StatusNotFound {
		t.Errorf("a trend without points: %d", code)
	}
	if code, _ := get(t, h, "/trend.svg?figure=nothing"); code != http.StatusBadRequest {
		t.Errorf("an unknown figure: %d", code)
	}
}

// TestNoQA: an index without QA directories says so.
func TestNoQA(t *testing.T) {
	h := newHandler(t, openIndex(t))
	if code, body := get(t, h, "/qa"); code != http.StatusOK || !strings.Contains(body, "No QA runs indexed") {
		t.Errorf("%d\n%s", code, body)
	}
	if code, body := get(t, h, "/api/qa"); code != http.StatusOK || strings.TrimSpace(body) != "{\n  \"runs\": []\n}" {
		t.Errorf("%d\n%s", code, body)
	}
	for _, p := range []string{"/runs", "/compare", "/trend", "/changes"} {
		if code, body := get(t, h, p); code != http.StatusOK {
			t.Errorf("%s on an empty index: %d\n%s", p, code, body)
		}
	}
	if code, _ := get(t, h, "/run?dir=/nowhere"); code != http.StatusNotFound {
		t.Errorf("a run not indexed: %d", code)
	}
	if code, _ := get(t, h, "/nothing"); code != http.StatusNotFound {
		t.Errorf("no such page: %d", code)
	}
	if code, _ := get(t, h, "/"); code != http.StatusFound {
		t.Errorf("/: %d", code)
	}
}

// TestServe: Serve answers until its context is done, then returns nil
// and stops listening.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, newHandler(t, openIndex(t))) }()
	url := "http://" + ln.Addr().String() + "/api/runs"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%s: %d", url, resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(ShutdownTimeout + time.Second):
		t.Fatal("Serve did not return")
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("still answering after the shutdown")
	}
}
