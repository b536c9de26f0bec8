package collect

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// Recorded expositions of real nodes (2 validators, after 8 s of load at
// 100 tx/s), one file per node and version.
var fixtures = []string{"v0.40.0-node1.prom", "v0.40.0-node2.prom", "v0.38.26-node1.prom", "v0.38.26-node2.prom"}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type sample struct {
	name, labels string
}

// parseAll runs Parse and collects rows by series.
func parseAll(t testing.TB, e *Exposition, body []byte) map[sample]float64 {
	t.Helper()
	got := map[sample]float64{}
	n, err := e.Parse(body, "validator01", 42, func(m *results.Metric) {
		if m.Node != "validator01" || m.Time != 42 {
			t.Errorf("row %+v: wrong node or time", *m)
		}
		k := sample{m.Name, m.Labels}
		if _, dup := got[k]; dup {
			t.Errorf("series %v twice", k)
		}
		got[k] = m.Value
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(got) {
		t.Errorf("Parse says %d rows, emitted %d", n, len(got))
	}
	return got
}

// naive reads the sample lines of a simple exposition (no escapes, no
// commas or quotes in label values) without expfmt: the reference the
// parser's rows are checked against.
func naive(t testing.TB, body []byte) map[sample]float64 {
	out := map[sample]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		var labels []string
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			name, rest = line[:i], strings.TrimSpace(line[j+1:])
			for _, kv := range strings.Split(line[i+1:j], ",") {
				k, v, _ := strings.Cut(kv, "=")
				labels = append(labels, k+"="+strings.Trim(v, `"`))
			}
		}
		slices.Sort(labels)
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out[sample{name, strings.Join(labels, ";")}] = v
	}
	return out
}

// TestExpositionFixtures parses real v0.40.0 and v0.38.26 expositions:
// with every series kept, each sample line becomes exactly one row with
// its value; the default set is exactly those rows of the default
// families without buckets; known values come through.
func TestExpositionFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f, func(t *testing.T) {
			body := readFixture(t, f)
			want := naive(t, body)
			all := parseAll(t, NewExposition(NewSeries("", true)), body)
			if len(all) != len(want) {
				t.Errorf("all: %d rows, want %d (one per sample line)", len(all), len(want))
			}
			for k, v := range want {
				if g, ok := all[k]; !ok || g != v {
					t.Errorf("all: %v = %v (present %v), want %v", k, g, ok, v)
				}
			}
			series := NewSeries("", false)
			def := parseAll(t, NewExposition(series), body)
			wantDef := map[sample]float64{}
			for k, v := range want {
				quantile := strings.Contains(k.labels, "quantile=") // a summary's: kept only with all
				if !strings.HasSuffix(k.name, "_bucket") && !quantile && series.keepsSample(k.name) {
					wantDef[k] = v
				}
			}
			if !maps.Equal(def, wantDef) {
				t.Errorf("default rows differ:\n got %v\nwant %v", keys(def), keys(wantDef))
			}
			// Every default family this version exposes is there.
			names := map[string]bool{}
			for k := range def {
				names[k.name] = true
			}
			for _, n := range []string{"cometbft_consensus_height", "cometbft_consensus_total_txs", "cometbft_mempool_size",
				"cometbft_mempool_size_bytes", "cometbft_p2p_peers", "cometbft_consensus_rounds", "cometbft_consensus_num_txs",
				"cometbft_consensus_block_size_bytes", "cometbft_consensus_block_interval_seconds_sum",
				"cometbft_consensus_block_interval_seconds_count", "cometbft_consensus_round_duration_seconds_count",
				"cometbft_consensus_step_duration_seconds_sum", "cometbft_state_block_processing_time_sum",
				"cometbft_abci_connection_method_timing_seconds_count", "cometbft_p2p_peer_send_bytes_total",
				"cometbft_p2p_peer_receive_bytes_total", "cometbft_blocksync_syncing", "process_resident_memory_bytes",
				"process_cpu_seconds_total", "go_goroutines", "go_gc_duration_seconds_sum"} {
				if !names[n] {
					t.Errorf("default rows lack %s", n)
				}
			}
		})
	}
}

// TestExpositionValues checks known values of the v0.38.26 recording.
func TestExpositionValues(t *testing.T) {
	def := parseAll(t, NewExposition(NewSeries("", false)), readFixture(t, "v0.38.26-node1.prom"))
	chain := "chain_id=cometlab-3c78ce6f"
	for _, c := range []struct {
		name, labels string
		want         float64
	}{
		{"cometbft_consensus_height", chain, 12},
		{"cometbft_consensus_total_txs", chain, 800},
		{"cometbft_p2p_peers", chain, 1},
		{"cometbft_consensus_block_interval_seconds_count", chain, 10},
		{"cometbft_state_block_processing_time_sum", chain, 2.3225700000000002},
		{"cometbft_abci_connection_method_timing_seconds_count", chain + ";method=check_tx;type=async", 977},
		{"go_goroutines", "", 53},
		{"process_resident_memory_bytes", "", 6.3782912e+07},
	} {
		if got, ok := def[sample{c.name, c.labels}]; !ok || got != c.want {
			t.Errorf("%s{%s} = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
}

// TestExpositionCases covers what real nodes rarely show: a namespace,
// summaries, histograms without +Inf, untyped and orphan _sum series,
// label order, and syntax errors.
func TestExpositionCases(t *testing.T) {
	tests := []struct {
		name      string
		namespace string
		all       bool
		prefixes  []string
		in        string
		want      []string // "name{labels} value", in output order
		err       bool
	}{
		{name: "namespace", namespace: "chain",
			in:   "# TYPE chain_consensus_height gauge\nchain_consensus_height 7\ncometbft_consensus_height 9\n",
			want: []string{"chain_consensus_height{} 7"}},
		{name: "labels sorted", in: `cometbft_mempool_size{z="1",a="2"} 3` + "\n",
			want: []string{"cometbft_mempool_size{a=2;z=1} 3"}},
		{name: "histogram default", in: "# TYPE cometbft_consensus_block_interval_seconds histogram\n" +
			"cometbft_consensus_block_interval_seconds_bucket{le=\"1\"} 2\ncometbft_consensus_block_interval_seconds_sum 1.5\ncometbft_consensus_block_interval_seconds_count 3\n",
			want: []string{"cometbft_consensus_block_interval_seconds_sum{} 1.5", "cometbft_consensus_block_interval_seconds_count{} 3"}},
		{name: "histogram all adds +Inf", all: true, in: "# TYPE h histogram\n" +
			"h_bucket{a=\"x\",le=\"0.5\"} 2\nh_sum{a=\"x\"} 1.5\nh_count{a=\"x\"} 3\n",
			want: []string{"h_sum{a=x} 1.5", "h_count{a=x} 3", "h_bucket{a=x;le=0.5} 2", "h_bucket{a=x;le=+Inf} 3"}},
		{name: "summary all", all: true, in: "# TYPE go_gc_duration_seconds summary\n" +
			"go_gc_duration_seconds{quantile=\"0.5\"} 0.1\ngo_gc_duration_seconds_sum 2\ngo_gc_duration_seconds_count 4\n",
			want: []string{"go_gc_duration_seconds_sum{} 2", "go_gc_duration_seconds_count{} 4", "go_gc_duration_seconds{quantile=0.5} 0.1"}},
		{name: "summary default sum and count", in: "# TYPE go_gc_duration_seconds summary\n" +
			"go_gc_duration_seconds{quantile=\"0.5\"} 0.1\ngo_gc_duration_seconds_sum 2\ngo_gc_duration_seconds_count 4\n",
			want: []string{"go_gc_duration_seconds_sum{} 2", "go_gc_duration_seconds_count{} 4"}},
		{name: "summary default dropped", in: "# TYPE go_memstats_gc_seconds summary\ngo_memstats_gc_seconds_sum 2\n"},
		{name: "untyped orphan sum", in: "cometbft_consensus_step_duration_seconds_sum{step=\"Commit\"} 0.5\n",
			want: []string{"cometbft_consensus_step_duration_seconds_sum{step=Commit} 0.5"}},
		{name: "timestamps ignored", in: "go_goroutines 5 1700000000000\n", want: []string{"go_goroutines{} 5"}},
		{name: "comments and blanks", in: "# just a comment\n\n   \n# HELP go_goroutines n\ngo_goroutines 5\n", want: []string{"go_goroutines{} 5"}},
		{name: "error in a kept line", in: "go_goroutines five\n", err: true},
		{name: "error in a dropped line is not seen", in: "other_metric five\ngo_goroutines 1\n", want: []string{"go_goroutines{} 1"}},
		{name: "error with all", all: true, in: "other_metric five\n", err: true},
		{name: "empty", in: ""},
		{name: "an app's prefix: its counters, summaries' sums and counts, no buckets", prefixes: []string{"sdkchain_"}, in: "# TYPE sdkchain_end_blocker summary\n" +
			"sdkchain_end_blocker{module=\"bank\",quantile=\"0.5\"} 0.02\nsdkchain_end_blocker_sum{module=\"bank\"} 1\nsdkchain_end_blocker_count{module=\"bank\"} 9\n" +
			"# TYPE sdkchain_tx_count counter\nsdkchain_tx_count 40\nsdkchain_h_bucket{le=\"1\"} 2\nsdkchainx 1\nother_metric 3\n",
			want: []string{"sdkchain_end_blocker_sum{module=bank} 1",
				"sdkchain_end_blocker_count{module=bank} 9", "sdkchain_tx_count{} 40"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			_, err := NewExposition(NewSeries(tt.namespace, tt.all).WithPrefixes(tt.prefixes...)).Parse([]byte(tt.in), "n", 1, func(m *results.Metric) {
				got = append(got, fmt.Sprintf("%s{%s} %v", m.Name, m.Labels, m.Value))
			})
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func keys(m map[sample]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k.name+"{"+k.labels+"}")
	}
	slices.Sort(out)
	return out
}

// BenchmarkExposition parses one real node's exposition, as the scraper
// does every interval per node.
func BenchmarkExposition(b *testing.B) {
	body := readFixture(b, "v0.40.0-node1.prom")
	for _, all := range []bool{false, true} {
		b.Run(fmt.Sprintf("all=%v", all), func(b *testing.B) {
			e := NewExposition(NewSeries("", all))
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Parse(body, "n", 1, func(*results.Metric) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
