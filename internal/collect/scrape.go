package collect

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// Target is one Prometheus endpoint to scrape.
type Target struct {
	Name string // node name: the node column of metrics.csv
	URL  string // http://host:port/metrics
}

// ScrapeConfig configures a Scraper.
type ScrapeConfig struct {
	// Interval between scrapes of each target; 0 means 1 s.
	Interval time.Duration
	// Namespace is the nodes' instrumentation.namespace; "" means
	// [DefaultNamespace].
	Namespace string
	// All keeps every series (histogram buckets included) instead of the
	// default set (see [NewSeries]).
	All bool
	// Prefixes keeps, besides the default set, every family whose name
	// starts with one of them (see [Series.WithPrefixes]).
	Prefixes []string
	// Timeout bounds one scrape; 0 means the interval (at most 10 s).
	Timeout time.Duration
}

// ScrapeStats counts the scrapes of one target. A failed scrape (endpoint
// down, node dead, bad exposition) leaves a gap in that node's series.
type ScrapeStats struct {
	Node      string
	Successes int64
	Failures  int64
	Rows      int64  // metrics.csv rows written
	LastError string // the last failure, "" when none
}

// Scraper scrapes every target at a fixed interval and writes the kept
// series to metrics.csv. A target that fails is retried at the next tick;
// failures are logged at debug level and counted, never fatal.
type Scraper struct {
	targets []Target
	cfg     ScrapeConfig
	series  *Series
	w       *results.Writer
	logger  *slog.Logger
	client  *http.Client

	mu    sync.Mutex
	stats []ScrapeStats
}

// NewScraper returns a scraper of targets writing rows to w.
func NewScraper(targets []Target, cfg ScrapeConfig, w *results.Writer, logger *slog.Logger) *Scraper {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = min(cfg.Interval, 10*time.Second)
	}
	s := &Scraper{targets: targets, cfg: cfg, series: NewSeries(cfg.Namespace, cfg.All).WithPrefixes(cfg.Prefixes...), w: w, logger: logger,
		client: &http.Client{Transport: &http.Transport{
			// One kept-alive connection per node; no gzip: on loopback
			// compressing and inflating costs more than the bytes.
			DialContext:         (&net.Dialer{Timeout: cfg.Timeout}).DialContext,
			MaxIdleConnsPerHost: 1,
			IdleConnTimeout:     max(2*cfg.Interval, 30*time.Second),
			DisableCompression:  true,
		}}}
	for _, t := range targets {
		s.stats = append(s.stats, ScrapeStats{Node: t.Name})
	}
	return s
}

// Run scrapes every target until ctx ends, then flushes the writer.
func (s *Scraper) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := range s.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.loop(ctx, i)
		}()
	}
	wg.Wait()
	s.client.CloseIdleConnections()
	return s.w.Flush()
}

// Stats returns the scrape counts of every target, in target order.
func (s *Scraper) Stats() []ScrapeStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ScrapeStats(nil), s.stats...)
}

func (s *Scraper) loop(ctx context.Context, i int) {
	t := s.targets[i]
	exp := NewExposition(s.series)
	var body bytes.Buffer
	tick := time.NewTicker(s.cfg.Interval)
	defer tick.Stop()
	for {
		at := time.Now()
		rows, err := s.scrape(ctx, t, exp, &body, at)
		if err != nil && ctx.Err() != nil {
			return // a scrape cut short by the end of the run is no failure
		}
		s.mu.Lock()
		st := &s.stats[i]
		if err != nil {
			st.Failures++
			st.LastError = err.Error()
		} else {
			st.Successes++
			st.Rows += int64(rows)
		}
		n := st.Failures
		s.mu.Unlock()
		if err != nil {
			s.logger.Debug("scrape failed; a gap in this node's series", "node", t.Name, "url", t.URL, "failures", n, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// scrape fetches one exposition into body and writes its rows.
func (s *Scraper) scrape(ctx context.Context, t Target, exp *Exposition, body *bytes.Buffer, at time.Time) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body.Reset()
	_, err = body.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", t.URL, resp.Status)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: read: %w", t.URL, err)
	}
	var werr error
	rows, err := exp.Parse(body.Bytes(), t.Name, at.UnixNano(), func(m *results.Metric) {
		if err := s.w.Write(m); err != nil && werr == nil {
			werr = err
		}
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", t.URL, err)
	}
	if werr != nil {
		return rows, fmt.Errorf("write metrics: %w", werr)
	}
	return rows, nil
}
