package collect

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// PromNode is one node as a Prometheus server knows it.
type PromNode struct {
	Name string // node name: the node column of metrics.csv
	// Instance is the host:port of the node's metrics endpoint (the
	// instance label); series are matched by a node label equal to Name
	// first (what `cometlab prometheus-config` sets), and by instance when
	// there is no such series.
	Instance string
}

// RangeQuery asks for the kept series of some nodes over a time window.
type RangeQuery struct {
	Nodes      []PromNode
	Start, End time.Time
	Step       time.Duration // resolution; 0 means 1 s
	Namespace  string        // "" means DefaultNamespace
	All        bool          // every series instead of the default set
}

// PromStats counts what a range read found for one node.
type PromStats struct {
	Node    string
	Series  int
	Rows    int64
	MatchBy string // "node" or "instance"; "" when nothing matched
}

// stepsPerQuery bounds one query_range request (Prometheus refuses more
// than 11,000 points per series; smaller requests bound memory too).
const stepsPerQuery = 600

// droppedLabels are target labels a Prometheus scrape adds; they are not
// the node's own labels, so they are not stored.
var droppedLabels = map[string]bool{"__name__": true, "job": true, "instance": true, "node": true}

// PromAPI reads node series from a Prometheus server's HTTP API.
type PromAPI struct {
	base   string
	client *http.Client
	logger *slog.Logger
}

// NewPromAPI returns a client of the Prometheus server at baseURL
// (http://host:9090).
func NewPromAPI(baseURL string, logger *slog.Logger) *PromAPI {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &PromAPI{base: strings.TrimRight(baseURL, "/"), client: &http.Client{Timeout: time.Minute}, logger: logger}
}

// NodeInstance returns the host:port of a metrics URL (the instance label
// Prometheus gives its target).
func NodeInstance(metricsURL string) string {
	u, err := url.Parse(metricsURL)
	if err != nil || u.Host == "" {
		return metricsURL
	}
	return u.Host
}

// RunQuery returns the range query for a run: its nodes with a metrics
// endpoint, from 10 s before the load started until the run ended (or
// until now, for a run still going on).
func RunQuery(run results.Run, step time.Duration, namespace string, all bool) RangeQuery {
	q := RangeQuery{Start: run.LoadStart.Add(-10 * time.Second), End: run.Ended, Step: step, Namespace: namespace, All: all}
	if q.End.IsZero() {
		q.End = time.Now()
	}
	for _, n := range run.Nodes {
		if n.Metrics != "" {
			q.Nodes = append(q.Nodes, PromNode{Name: n.Name, Instance: NodeInstance(n.Metrics)})
		}
	}
	return q
}

// ReadRange writes the query's series to w as metrics.csv rows (the same
// names and labels as the embedded scraper's, without the target labels
// job, instance and node), in windows of stepsPerQuery steps, each window's
// rows in time order. A node with no series is not an error: its stats say
// so.
func (p *PromAPI) ReadRange(ctx context.Context, q RangeQuery, w *results.Writer) ([]PromStats, error) {
	if q.Step <= 0 {
		q.Step = time.Second
	}
	if !q.End.After(q.Start) {
		return nil, fmt.Errorf("empty window %s … %s", q.Start.Format(time.RFC3339), q.End.Format(time.RFC3339))
	}
	re := NewSeries(q.Namespace, q.All).PromQLNameRegexp()
	// A summary's quantile series carry the family's own name: by default
	// only its _sum and _count are kept, as the embedded scraper keeps them.
	quantiles := `,quantile=""`
	if q.All {
		quantiles = ""
	}
	stats := make([]PromStats, len(q.Nodes))
	seen := make([]map[string]bool, len(q.Nodes))
	for i, n := range q.Nodes {
		stats[i].Node = n.Name
		seen[i] = map[string]bool{}
	}
	var rows []results.Metric
	for from := q.Start; !from.After(q.End); from = from.Add(stepsPerQuery * q.Step) {
		to := minTime(q.End, from.Add((stepsPerQuery-1)*q.Step))
		for i, n := range q.Nodes {
			st := &stats[i]
			var series []promSeries
			var err error
			if st.MatchBy != "instance" {
				series, err = p.queryRange(ctx, fmt.Sprintf(`{__name__=~%q,node=%q%s}`, re, n.Name, quantiles), from, to, q.Step)
				if err != nil {
					return stats, err
				}
				if len(series) > 0 {
					st.MatchBy = "node"
				}
			}
			if len(series) == 0 && st.MatchBy != "node" && n.Instance != "" {
				series, err = p.queryRange(ctx, fmt.Sprintf(`{__name__=~%q,instance=%q%s}`, re, n.Instance, quantiles), from, to, q.Step)
				if err != nil {
					return stats, err
				}
				if len(series) > 0 {
					st.MatchBy = "instance"
				}
			}
			rows = rows[:0]
			for _, s := range series {
				name, labels := s.nameLabels()
				if !seen[i][name+"{"+labels+"}"] {
					seen[i][name+"{"+labels+"}"] = true
					st.Series++
				}
				for _, pt := range s.Values {
					rows = append(rows, results.Metric{Time: pt.T, Node: n.Name, Name: name, Labels: labels, Value: pt.V})
				}
			}
			slices.SortStableFunc(rows, func(a, b results.Metric) int { return cmp.Compare(a.Time, b.Time) })
			for k := range rows {
				if err := w.Write(&rows[k]); err != nil {
					return stats, fmt.Errorf("write metrics: %w", err)
				}
			}
			st.Rows += int64(len(rows))
		}
	}
	return stats, w.Flush()
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// queryRange runs one /api/v1/query_range request.
func (p *PromAPI) queryRange(ctx context.Context, query string, start, end time.Time, step time.Duration) ([]promSeries, error) {
	form := url.Values{
		"query": {query},
		"start": {formatPromTime(start)},
		"end":   {formatPromTime(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/api/v1/query_range", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("prometheus: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("prometheus: read: %w", err)
	}
	series, err := decodeQueryRange(body)
	if err != nil {
		return nil, fmt.Errorf("prometheus query_range %s (HTTP %d): %w", query, resp.StatusCode, err)
	}
	p.logger.Debug("prometheus query_range", "query", query, "series", len(series))
	return series, nil
}

func formatPromTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

// promSeries is one series of a matrix result.
type promSeries struct {
	Metric map[string]string `json:"metric"`
	Values []promPoint       `json:"values"`
}

// nameLabels returns the series name and its labels formatted as in
// metrics.csv, without the target labels.
func (s promSeries) nameLabels() (string, string) {
	keys := make([]string, 0, len(s.Metric))
	for k := range s.Metric {
		if !droppedLabels[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(s.Metric[k])
	}
	return s.Metric["__name__"], b.String()
}

// promPoint is one [unix_seconds, "value"] pair.
type promPoint struct {
	T int64 // Unix ns (Prometheus keeps milliseconds)
	V float64
}

// UnmarshalJSON decodes [1700000000.123, "1.5"].
func (p *promPoint) UnmarshalJSON(b []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	var ts float64
	if err := json.Unmarshal(pair[0], &ts); err != nil {
		return fmt.Errorf("sample time: %w", err)
	}
	var vs string
	if err := json.Unmarshal(pair[1], &vs); err != nil {
		return fmt.Errorf("sample value: %w", err)
	}
	v, err := strconv.ParseFloat(vs, 64)
	if err != nil {
		return fmt.Errorf("sample value: %w", err)
	}
	if math.IsNaN(ts) || math.Abs(ts) > 9e9 {
		return fmt.Errorf("sample time %v out of range", ts)
	}
	p.T, p.V = int64(math.Round(ts*1000))*int64(time.Millisecond), v
	return nil
}

// decodeQueryRange decodes a query_range response: the matrix on success,
// Prometheus's own error otherwise.
func decodeQueryRange(body []byte) ([]promSeries, error) {
	var r struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      struct {
			ResultType string       `json:"resultType"`
			Result     []promSeries `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	switch {
	case r.Status == "error":
		return nil, fmt.Errorf("%s: %s", r.ErrorType, r.Error)
	case r.Status != "success":
		return nil, fmt.Errorf("status %q", r.Status)
	case r.Data.ResultType != "matrix":
		return nil, fmt.Errorf("result type %q, want matrix", r.Data.ResultType)
	}
	for _, s := range r.Data.Result {
		if s.Metric["__name__"] == "" {
			return nil, errors.New("a series without __name__")
		}
	}
	return r.Data.Result, nil
}
