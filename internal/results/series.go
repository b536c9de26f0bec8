package results

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Metric is one row of metrics.csv: one sample of one Prometheus series of
// one node. Histograms and summaries are stored as their _sum and _count
// series (and _bucket with an le label when every series is kept).
type Metric struct {
	Time   int64  // Unix ns of the scrape (or of the Prometheus sample)
	Node   string // node name
	Name   string // metric name as exposed, namespace included (cometbft_mempool_size)
	Labels string // k=v pairs sorted by key, joined with ';' (empty when none)
	Value  float64
}

// MetricsHeader is the header row of metrics.csv.
const MetricsHeader = "time_ns,node,metric,labels,value"

// AppendCSV appends the row (without newline).
func (m *Metric) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, m.Time, 10)
	b = append(b, ',')
	b = appendField(b, m.Node)
	b = append(b, ',')
	b = appendField(b, m.Name)
	b = append(b, ',')
	b = appendField(b, m.Labels)
	b = append(b, ',')
	return strconv.AppendFloat(b, m.Value, 'g', -1, 64)
}

func (m *Metric) parse(f []string) error {
	err := m.parseFields(f)
	m.Node, m.Name, m.Labels = strings.Clone(m.Node), strings.Clone(m.Name), strings.Clone(m.Labels)
	return err
}

// parseFields is parse without copying the strings.
func (m *Metric) parseFields(f []string) error {
	if len(f) != 5 {
		return errFields(5, f)
	}
	p := parser{f: f}
	m.Time = p.int(0)
	m.Node, m.Name, m.Labels = f[1], f[2], f[3]
	m.Value = p.float(4)
	return p.err
}

// Resource is one row of resources.csv: one sample of one local node
// process, read from /proc, with the host's 1-minute load average.
type Resource struct {
	Time      int64   // Unix ns
	Node      string  // node name
	CPU       float64 // % of one core since the previous sample (200 = two cores busy)
	RSS       int64   // resident set size, bytes
	OpenFiles int     // open file descriptors
	DataBytes int64   // size of the node's data directory on disk, bytes
	Load1     float64 // host load average over 1 minute (/proc/loadavg)
}

// ResourcesHeader is the header row of resources.csv.
const ResourcesHeader = "time_ns,node,cpu_pct,rss_bytes,open_files,data_bytes,load1"

// AppendCSV appends the row (without newline).
func (r *Resource) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, r.Time, 10)
	b = append(b, ',')
	b = appendField(b, r.Node)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.CPU, 'f', 2, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.RSS, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.OpenFiles), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.DataBytes, 10)
	b = append(b, ',')
	return strconv.AppendFloat(b, r.Load1, 'f', 2, 64)
}

func (r *Resource) parse(f []string) error {
	if len(f) != 7 {
		return errFields(7, f)
	}
	p := parser{f: f}
	r.Time = p.int(0)
	r.Node = strings.Clone(f[1])
	r.CPU = p.float(2)
	r.RSS = p.int(3)
	r.OpenFiles = int(p.int(4))
	r.DataBytes = p.int(5)
	r.Load1 = p.float(6)
	return p.err
}

// ReadMetrics reads dir/metrics.csv.
func ReadMetrics(dir string) ([]Metric, error) {
	return readAll[Metric](filepath.Join(dir, MetricsFile), MetricsHeader)
}

// ScanMetrics calls fn with every row of dir/metrics.csv without holding
// them all (an hour of every series of many nodes is large).
func ScanMetrics(dir string, fn func(*Metric) error) error {
	var m Metric
	return Scan(filepath.Join(dir, MetricsFile), MetricsHeader, func(f []string) error {
		if err := m.parseFields(f); err != nil {
			return err
		}
		return fn(&m)
	})
}

// ReadResources reads dir/resources.csv.
func ReadResources(dir string) ([]Resource, error) {
	return readAll[Resource](filepath.Join(dir, ResourceFile), ResourcesHeader)
}
