package collect

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPrometheusConfig(t *testing.T) {
	got, err := PrometheusConfig([]PromJob{
		{Name: "cometlab-abc", Targets: []Target{
			{Name: "validator01", URL: "http://127.0.0.1:26660/metrics"},
			{Name: "validator02", URL: "http://127.0.0.1:26661/custom"},
		}},
		{Name: "other", Interval: 500 * time.Millisecond, Targets: []Target{{Name: "x", URL: "https://[::1]:9000/metrics"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `scrape_configs:
  - job_name: "cometlab-abc"
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: ["127.0.0.1:26660"]
        labels:
          node: "validator01"
      - targets: ["127.0.0.1:26661"]
        labels:
          node: "validator02"
          __metrics_path__: "/custom"
  - job_name: "other"
    scrape_interval: 500ms
    scrape_timeout: 500ms
    static_configs:
      - targets: ["[::1]:9000"]
        labels:
          node: "x"
          __scheme__: https
`
	if _, body, _ := strings.Cut(string(got), "\n  scrape_timeout: 1s\n"); body != want {
		t.Errorf("prometheus.yml:\n%s\nwant the jobs:\n%s", got, want)
	}
	for _, bad := range [][]PromJob{
		nil,
		{{Name: "a", Targets: []Target{{Name: "n", URL: "http://h:1/metrics"}}}, {Name: "a", Targets: []Target{{Name: "n", URL: "http://h:1/metrics"}}}},
		{{Name: "a"}},
		{{Name: "a", Targets: []Target{{Name: "n", URL: "127.0.0.1:26660"}}}},
	} {
		if _, err := PrometheusConfig(bad); err == nil {
			t.Errorf("PrometheusConfig(%+v): no error", bad)
		}
	}
}

func TestListenAddrURL(t *testing.T) {
	for in, want := range map[string]string{
		":26660":              "http://127.0.0.1:26660/metrics",
		"127.0.0.1:26660":     "http://127.0.0.1:26660/metrics",
		"tcp://0.0.0.0:26661": "http://127.0.0.1:26661/metrics",
		"10.0.0.5:26660":      "http://10.0.0.5:26660/metrics",
		"[::]:1":              "http://127.0.0.1:1/metrics",
		"":                    "error",
		"26660":               "error",
	} {
		got, err := ListenAddrURL(in)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("ListenAddrURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPromDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1s", 500 * time.Millisecond: "500ms", 90 * time.Second: "1m30s", time.Hour: "1h", 15 * time.Second: "15s",
	} {
		if got := promDuration(d); got != want {
			t.Errorf("promDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// grafanaDashboard is the part of Grafana's (classic) dashboard JSON model
// the test checks.
type grafanaDashboard struct {
	UID           string `json:"uid"`
	Title         string `json:"title"`
	SchemaVersion int    `json:"schemaVersion"`
	Time          struct{ From, To string }
	Templating    struct {
		List []struct {
			Name, Type string
			Query      any
		}
	}
	Panels []struct {
		ID         int    `json:"id"`
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource struct{ Type, UID string }
		GridPos    struct{ H, W, X, Y int } `json:"gridPos"`
		Targets    []struct {
			RefID        string `json:"refId"`
			Expr         string `json:"expr"`
			LegendFormat string `json:"legendFormat"`
			Datasource   struct{ Type, UID string }
		}
	}
}

// TestGrafanaDashboard decodes the dashboard strictly enough to catch a
// broken model: a datasource variable, unique panel ids, no overlapping
// panels, and every panel a PromQL query over the namespace and $node.
func TestGrafanaDashboard(t *testing.T) {
	b, err := GrafanaDashboard(DashboardOptions{Namespace: "chain"})
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" || d.SchemaVersion < 36 || d.Time.From == "" {
		t.Errorf("dashboard header %+v", d)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v.Type
	}
	if vars["datasource"] != "datasource" || vars["node"] != "query" {
		t.Errorf("variables %v", vars)
	}
	if len(d.Panels) != len(dashboardPanels) {
		t.Errorf("%d panels", len(d.Panels))
	}
	ids := map[int]bool{}
	cells := map[string]string{}
	for _, p := range d.Panels {
		if ids[p.ID] || p.ID == 0 {
			t.Errorf("panel id %d repeated", p.ID)
		}
		ids[p.ID] = true
		if p.Type != "timeseries" || p.Title == "" || p.Datasource.UID != "${datasource}" || p.Datasource.Type != "prometheus" {
			t.Errorf("panel %+v", p)
		}
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				k := fmt.Sprint(x, y)
				if cells[k] != "" {
					t.Errorf("panels %q and %q overlap", cells[k], p.Title)
				}
				cells[k] = p.Title
			}
		}
		if p.GridPos.X+p.GridPos.W > 24 || p.GridPos.H == 0 {
			t.Errorf("panel %q grid %+v", p.Title, p.GridPos)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			if q.Expr == "" || q.RefID == "" || !strings.Contains(q.Expr, `{node=~"$node"}`) || strings.Contains(q.Expr, "NS_") ||
				(strings.Contains(q.Expr, "consensus") && !strings.Contains(q.Expr, "chain_consensus")) {
				t.Errorf("panel %q query %+v", p.Title, q)
			}
		}
	}
}
