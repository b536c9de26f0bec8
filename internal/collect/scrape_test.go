package collect

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// TestScraper scrapes three endpoints for a while: a healthy node, one
// that dies half-way, and one with no endpoint at all. The healthy node
// has a row of every default series per scrape; the dying one stops
// (a gap, counted as failures); the missing one only counts failures; the
// run itself never fails.
func TestScraper(t *testing.T) {
	body := readFixture(t, "v0.40.0-node1.prom")
	var requests atomic.Int64
	serve := func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Accept-Encoding") == "gzip" {
			t.Errorf("scraper asked for gzip on loopback")
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(body)
	}
	good := httptest.NewServer(http.HandlerFunc(serve))
	defer good.Close()
	dying := httptest.NewServer(http.HandlerFunc(serve))
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()

	dir := t.TempDir()
	w, err := results.Create(filepath.Join(dir, results.MetricsFile), results.MetricsHeader)
	if err != nil {
		t.Fatal(err)
	}
	s := NewScraper([]Target{
		{Name: "good", URL: good.URL + "/metrics"},
		{Name: "dying", URL: dying.URL + "/metrics"},
		{Name: "dead", URL: dead.URL + "/metrics"},
	}, ScrapeConfig{Interval: 50 * time.Millisecond, Timeout: 5 * time.Second}, w, nil) // a busy host may take over 50 ms for one scrape: the good target must not count that as a failure
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	time.Sleep(300 * time.Millisecond)
	dying.CloseClientConnections()
	dying.Close()
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	st := s.Stats()
	if len(st) != 3 || st[0].Node != "good" || st[1].Node != "dying" || st[2].Node != "dead" {
		t.Fatalf("stats %+v", st)
	}
	if st[0].Successes < 5 || st[0].Failures != 0 {
		t.Errorf("good: %+v", st[0])
	}
	if st[1].Successes < 2 || st[1].Failures < 2 {
		t.Errorf("dying: %+v", st[1])
	}
	if st[2].Successes != 0 || st[2].Failures < 5 || st[2].LastError == "" {
		t.Errorf("dead: %+v", st[2])
	}

	perScrape := len(parseAll(t, NewExposition(NewSeries("", false)), body))
	rows := map[string]int{}
	times := map[string]map[int64]bool{"good": {}, "dying": {}}
	err = results.ScanMetrics(dir, func(m *results.Metric) error {
		rows[m.Node]++
		times[m.Node][m.Time] = true
		if strings.HasSuffix(m.Name, "_bucket") {
			t.Errorf("bucket row by default: %+v", *m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, node := range []string{"good", "dying"} {
		if rows[node] != int(st[i].Successes)*perScrape || int64(rows[node]) != st[i].Rows {
			t.Errorf("%s: %d rows for %d scrapes of %d series (stats say %d rows)", node, rows[node], st[i].Successes, perScrape, st[i].Rows)
		}
		if len(times[node]) != int(st[i].Successes) {
			t.Errorf("%s: %d distinct times for %d scrapes", node, len(times[node]), st[i].Successes)
		}
	}
	if rows["dead"] != 0 {
		t.Errorf("dead node has %d rows", rows["dead"])
	}
}

// BenchmarkScrape is one scrape of a real exposition over loopback HTTP,
// parse and CSV write included: the cost per node per interval.
func BenchmarkScrape(b *testing.B) {
	body := readFixture(b, "v0.40.0-node1.prom")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(body) }))
	defer srv.Close()
	w, err := results.Create(filepath.Join(b.TempDir(), results.MetricsFile), results.MetricsHeader)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	s := NewScraper([]Target{{Name: "n", URL: srv.URL}}, ScrapeConfig{}, w, nil)
	exp := NewExposition(s.series)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.scrape(context.Background(), s.targets[0], exp, &buf, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
