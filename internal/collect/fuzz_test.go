package collect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// FuzzParseExposition feeds arbitrary expositions to both selections: no
// panic; rows carry the scrape's node and time; the default selection
// emits only kept series and never a bucket; what the line filter passes
// on is a subsequence of the input's lines.
func FuzzParseExposition(f *testing.F) {
	// Seeds cut from the real expositions at a line boundary: whole
	// 47 KB expositions make the fuzzer spend its time minimizing.
	for _, name := range fixtures {
		b := readFixture(f, name)
		for _, off := range []int{0, len(b) / 3, 2 * len(b) / 3} {
			chunk := b[off:min(off+3000, len(b))]
			if i := bytes.IndexByte(chunk, '\n'); off > 0 && i >= 0 {
				chunk = chunk[i+1:]
			}
			if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
				chunk = chunk[:i+1]
			}
			f.Add(chunk)
		}
	}
	for _, s := range []string{
		"",
		"go_goroutines 5\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
		"# TYPE cometbft_consensus_step_duration_seconds histogram\ncometbft_consensus_step_duration_seconds_sum{step=\"Commit\"} 1\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 1\ns_count 2\n",
		"{\"go_goroutines\"} 1\n",
		"{}\n",
		"cometbft_mempool_size{a=\"x\\\"y\",b=\"\\n\"} NaN 123\n",
		"# TYPE go_goroutines gauge\n# TYPE go_goroutines counter\ngo_goroutines 1",
		"cometbft_p2p_peers{chain_id=\"c\"} +Inf\n",
	} {
		f.Add([]byte(s))
	}
	def, all := NewSeries("", false), NewSeries("", true)
	f.Fuzz(func(t *testing.T, body []byte) {
		e := NewExposition(def)
		_, _ = e.Parse(body, "node", 7, func(m *results.Metric) {
			if m.Node != "node" || m.Time != 7 {
				t.Fatalf("row %+v lost its node or time", *m)
			}
			if strings.HasSuffix(m.Name, "_bucket") || !def.keepsSample(m.Name) {
				t.Fatalf("default selection emitted %q", m.Name)
			}
		})
		_, _ = NewExposition(all).Parse(body, "node", 7, func(m *results.Metric) {
			if m.Node != "node" || m.Time != 7 || m.Name == "" {
				t.Fatalf("row %+v", *m)
			}
		})
		// The filter only drops lines.
		out := e.filter(nil, body)
		in := bytes.Split(body, []byte("\n"))
		j := 0
		for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
			if len(out) == 0 {
				break
			}
			for j < len(in) && !bytes.Equal(in[j], line) {
				j++
			}
			if j == len(in) {
				t.Fatalf("filter produced %q, not a line of the input", line)
			}
			j++
		}
	})
}
