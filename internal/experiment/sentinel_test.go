package experiment

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/sentinel"
)

// TestSentinelOptions: [sentinel] keys replace the sentinel's defaults,
// absent ones keep them, per-key tables override the limits, and the
// settings phrase says what was set.
func TestSentinelOptions(t *testing.T) {
	rate0, burst10 := 0.0, 10
	d := sentinel.DefaultOptions()
	for _, tc := range []struct {
		name     string
		ms       manifest.ManifestSentinel
		check    func(o sentinel.Options) bool
		settings string
	}{
		{"defaults", manifest.ManifestSentinel{}, func(o sentinel.Options) bool {
			return o.Limits.Rate == d.Limits.Rate && o.ClientQueue == d.ClientQueue && o.Buffer == d.Buffer && o.Pace == d.Pace && !o.NoQueue
		}, "per client 2000 tx/s (burst 200); fair queues of 2000 per client, 20000 in all; paced by the node's mempool (target 4750 txs)"},
		{"set", manifest.ManifestSentinel{Rate: &rate0, ClientQueue: 50, Buffer: 500, PaceTarget: 4000,
			Clients: map[string]manifest.ManifestSentinelClient{"greedy": {Burst: &burst10, Weight: 3}}}, func(o sentinel.Options) bool {
			g := o.Overrides["greedy"]
			return o.Limits.Rate == 0 && o.ClientQueue == 50 && o.Buffer == 500 && o.Pace.Target == 4000 &&
				g.Rate == 0 && g.Burst == 10 && g.Weight == 3
		}, "per client no rate limit; fair queues of 50 per client, 500 in all; paced by the node's mempool (target 4000 txs); overrides greedy: no rate limit, weight 3"},
		{"plain proxy", manifest.ManifestSentinel{NoQueue: true}, func(o sentinel.Options) bool { return o.NoQueue },
			"per client 2000 tx/s (burst 200); no queue, no pacing: each tx forwarded at once (the plain rate-limiting proxy)"},
		{"fixed rate", manifest.ManifestSentinel{MaxRate: 1400}, func(o sentinel.Options) bool { return o.MaxRate == 1400 },
			"per client 2000 tx/s (burst 200); fair queues of 2000 per client, 20000 in all; forwarded at a fixed 1400 tx/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := sentinelOptions(&tc.ms, "http://127.0.0.1:26657")
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			if o.ClientHeader != ClientKeyHeader || o.Upstream != "http://127.0.0.1:26657" || !tc.check(o) {
				t.Errorf("options %+v", o)
			}
			if got := sentinelSettings(o); got != tc.settings {
				t.Errorf("settings\n got %q\nwant %q", got, tc.settings)
			}
		})
	}
}

// TestSentinelScraped: every metric family the lab's sentinel exposes is
// one the scraper keeps by default, so it reaches metrics.csv.
func TestSentinelScraped(t *testing.T) {
	ls, err := startSentinel(&manifest.ManifestSentinel{}, "http://127.0.0.1:1", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer ls.stop()
	resp, err := http.Get(ls.target().URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	keep := collect.NewSeries("", false)
	n := 0
	for name := range fams {
		if strings.HasPrefix(name, "sentinel_") {
			n++
			if !keep.Keeps(name) {
				t.Errorf("the sentinel's %s is not scraped by default", name)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d sentinel families exposed: %s", n, body)
	}
}
