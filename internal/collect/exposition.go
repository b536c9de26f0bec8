package collect

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cometlab/cometlab/internal/results"
)

// maxInterned bounds the label-string cache of an exposition parser; past
// it the cache starts again (peers come and go, so label sets change).
const maxInterned = 1 << 14

// Exposition turns scrapes of one node's Prometheus text exposition into
// metrics.csv rows. It is the pure core of the scraper: no I/O, and it
// keeps its buffers between calls, so it is not safe for concurrent use
// (one per node).
//
// Only the lines of kept families reach the standard parser
// (expfmt.TextParser): the default series are a small part of what a
// CometBFT node exposes, most of the rest histogram buckets.
type Exposition struct {
	series   *Series
	parser   expfmt.TextParser
	filtered []byte
	names    []string
	lb       []byte
	interned map[string]string
	row      results.Metric
}

// NewExposition returns a parser keeping the families series selects.
func NewExposition(series *Series) *Exposition {
	return &Exposition{series: series, parser: expfmt.NewTextParser(model.UTF8Validation), interned: map[string]string{}}
}

// Parse parses one exposition scraped from node at time at (Unix ns) and
// calls emit with one row per kept sample, families in name order. The row
// passed to emit is reused between calls. Counters, gauges and untyped
// metrics give one row each; summaries and histograms give NAME_sum and
// NAME_count rows, and with every series kept also NAME{quantile=q} or
// NAME_bucket{le=b} rows (a missing le="+Inf" bucket is added as the
// count). Labels are "k=v" pairs sorted by key, joined with ';'. Sample
// timestamps in the exposition are ignored: rows carry the scrape time.
// On a syntax error nothing is emitted (a panic of the parser on hostile
// input is an error too: the input comes from the network).
func (e *Exposition) Parse(body []byte, node string, at int64, emit func(*results.Metric)) (rows int, err error) {
	defer func() {
		if r := recover(); r != nil {
			rows, err = 0, fmt.Errorf("exposition parser: %v", r)
		}
	}()
	in := body
	if !e.series.all {
		e.filtered = e.filter(e.filtered[:0], body)
		in = e.filtered
	}
	fams, err := e.parser.TextToMetricFamilies(bytes.NewReader(in))
	if err != nil {
		return 0, err
	}
	e.names = e.names[:0]
	for name := range fams {
		if e.series.Keeps(name) || e.series.keepsSample(name) {
			e.names = append(e.names, name)
		}
	}
	slices.Sort(e.names)
	e.row = results.Metric{Time: at, Node: node}
	out := func(name, labels string, v float64) {
		e.row.Name, e.row.Labels, e.row.Value = name, labels, v
		emit(&e.row)
		rows++
	}
	for _, name := range e.names {
		mf := fams[name]
		for _, m := range mf.GetMetric() {
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
			labels := e.labels(m.Label, "", "")
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				out(name, labels, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				out(name, labels, m.GetGauge().GetValue())
			case dto.MetricType_UNTYPED:
				out(name, labels, m.GetUntyped().GetValue())
			case dto.MetricType_SUMMARY:
				s := m.GetSummary()
				out(name+"_sum", labels, s.GetSampleSum())
				out(name+"_count", labels, float64(s.GetSampleCount()))
				if e.series.all {
					for _, q := range s.GetQuantile() {
						out(name, e.labels(m.Label, model.QuantileLabel, formatBound(q.GetQuantile())), q.GetValue())
					}
				}
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				h := m.GetHistogram()
				count := float64(h.GetSampleCount())
				if h.SampleCountFloat != nil {
					count = h.GetSampleCountFloat()
				}
				out(name+"_sum", labels, h.GetSampleSum())
				out(name+"_count", labels, count)
				if e.series.all {
					inf := false
					for _, b := range h.GetBucket() {
						v := float64(b.GetCumulativeCount())
						if b.CumulativeCountFloat != nil {
							v = b.GetCumulativeCountFloat()
						}
						inf = inf || math.IsInf(b.GetUpperBound(), 1)
						out(name+"_bucket", e.labels(m.Label, model.BucketLabel, formatBound(b.GetUpperBound())), v)
					}
					if !inf {
						out(name+"_bucket", e.labels(m.Label, model.BucketLabel, "+Inf"), count)
					}
				}
			}
		}
	}
	return rows, nil
}

// filter appends to dst the lines of body that belong to kept families:
// their TYPE comments and their samples, without _bucket lines.
func (e *Exposition) filter(dst, body []byte) []byte {
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if e.keepLine(line) {
			dst = append(dst, line...)
			dst = append(dst, '\n')
		}
	}
	return dst
}

func (e *Exposition) keepLine(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 {
		return false
	}
	if line[0] == '#' {
		// Only TYPE comments matter to the parser (HELP text is dropped).
		rest, ok := bytes.CutPrefix(bytes.TrimLeft(line[1:], " \t"), []byte("TYPE"))
		if !ok || len(rest) == 0 || (rest[0] != ' ' && rest[0] != '\t') {
			return false
		}
		rest = bytes.TrimLeft(rest, " \t")
		if i := bytes.IndexAny(rest, " \t"); i >= 0 {
			rest = rest[:i]
		}
		return e.series.families[string(rest)] || e.series.prefixed(string(rest))
	}
	end := bytes.IndexAny(line, "{ \t")
	if end < 0 {
		end = len(line)
	}
	name := line[:end]
	if e.series.families[string(name)] {
		return true
	}
	if e.series.prefixed(string(name)) {
		return !bytes.HasSuffix(name, []byte("_bucket"))
	}
	for _, suf := range [...]string{"_sum", "_count"} {
		if base, ok := bytes.CutSuffix(name, []byte(suf)); ok && e.series.families[string(base)] {
			return true
		}
	}
	return false
}

// labels formats pairs (sorted by name) plus one extra pair when extra is
// not "", as "k=v;k2=v2" sorted by key; equal label sets share one string.
func (e *Exposition) labels(pairs []*dto.LabelPair, extra, extraValue string) string {
	b := e.lb[:0]
	put := func(k, v string) {
		if len(b) > 0 {
			b = append(b, ';')
		}
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
	}
	for _, p := range pairs {
		if extra != "" && extra < p.GetName() {
			put(extra, extraValue)
			extra = ""
		}
		put(p.GetName(), p.GetValue())
	}
	if extra != "" {
		put(extra, extraValue)
	}
	e.lb = b
	if s, ok := e.interned[string(b)]; ok {
		return s
	}
	if len(e.interned) >= maxInterned {
		clear(e.interned)
	}
	s := string(b)
	e.interned[s] = s
	return s
}

// formatBound formats a bucket bound or quantile as the Go client does.
func formatBound(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
