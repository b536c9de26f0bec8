package collect

import (
	"encoding/json"
	"strings"
)

// DashboardOptions configure GrafanaDashboard.
type DashboardOptions struct {
	Title     string // "" means "cometlab: CometBFT testnet"
	Namespace string // the nodes' instrumentation.namespace; "" means DefaultNamespace
	UID       string // dashboard uid; "" means "cometlab"
}

// panelSpec is one panel of the dashboard: a report figure as PromQL over
// the series the scraper keeps. "NS" stands for the namespace, "SEL" for
// the node selector.
type panelSpec struct {
	title, unit, expr, legend string
	stack                     bool // stack the series (the seeds' "cumulative" plot)
}

// dashboardPanels follow the report's figures, in its order.
var dashboardPanels = []panelSpec{
	{"Mempool size per node", "short", `NS_mempool_size{SEL}`, "{{node}}", false},
	{"Mempool size, all nodes (stacked)", "short", `NS_mempool_size{SEL}`, "{{node}}", true},
	{"Peers", "short", `NS_p2p_peers{SEL}`, "{{node}}", false},
	{"Consensus rounds per height", "short", `NS_consensus_rounds{SEL}`, "{{node}}", false},
	{"Height", "short", `NS_consensus_height{SEL}`, "{{node}}", false},
	{"Blocks per minute", "short", `increase(NS_consensus_height{SEL}[1m])`, "{{node}}", false},
	{"Transactions per minute", "short", `increase(NS_consensus_total_txs{SEL}[1m])`, "{{node}}", false},
	{"Block interval (mean over 1 min)", "s",
		`rate(NS_consensus_block_interval_seconds_sum{SEL}[1m]) / rate(NS_consensus_block_interval_seconds_count{SEL}[1m])`, "{{node}}", false},
	{"Block size", "bytes", `NS_consensus_block_size_bytes{SEL}`, "{{node}}", false},
	{"Block processing time (mean over 1 min)", "ms",
		`rate(NS_state_block_processing_time_sum{SEL}[1m]) / rate(NS_state_block_processing_time_count{SEL}[1m])`, "{{node}}", false},
	{"Consensus step duration (mean over 1 min)", "s",
		`sum by (step) (rate(NS_consensus_step_duration_seconds_sum{SEL}[1m])) / sum by (step) (rate(NS_consensus_step_duration_seconds_count{SEL}[1m]))`, "{{step}}", false},
	{"Resident memory", "bytes", `process_resident_memory_bytes{SEL}`, "{{node}}", false},
	{"CPU (% of one core)", "percent", `100 * rate(process_cpu_seconds_total{SEL}[1m])`, "{{node}}", false},
	{"Goroutines", "short", `go_goroutines{SEL}`, "{{node}}", false},
}

// GrafanaDashboard returns a Grafana dashboard (JSON model, schemaVersion
// 39) with one time-series panel per report figure, over a Prometheus data
// source chosen by the $datasource variable, for the nodes chosen by the
// $node variable (the node label of `cometlab prometheus-config`).
func GrafanaDashboard(opts DashboardOptions) ([]byte, error) {
	ns := opts.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	title := opts.Title
	if title == "" {
		title = "cometlab: CometBFT testnet"
	}
	uid := opts.UID
	if uid == "" {
		uid = "cometlab"
	}
	ds := map[string]any{"type": "prometheus", "uid": "${datasource}"}
	var panels []map[string]any
	for i, p := range dashboardPanels {
		stacking, fill := "none", 0
		if p.stack {
			stacking, fill = "normal", 30
		}
		expr := strings.ReplaceAll(strings.ReplaceAll(p.expr, "NS_", ns+"_"), "{SEL}", `{node=~"$node"}`)
		panels = append(panels, map[string]any{
			"id":         i + 1,
			"type":       "timeseries",
			"title":      p.title,
			"datasource": ds,
			"gridPos":    map[string]int{"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i / 2)},
			"fieldConfig": map[string]any{
				"defaults": map[string]any{"unit": p.unit, "custom": map[string]any{"lineWidth": 1, "fillOpacity": fill,
					"stacking": map[string]any{"mode": stacking, "group": "A"}}},
				"overrides": []any{},
			},
			"options": map[string]any{
				"legend":  map[string]any{"displayMode": "list", "placement": "bottom", "showLegend": true},
				"tooltip": map[string]any{"mode": "multi", "sort": "none"},
			},
			"targets": []map[string]any{{"refId": "A", "datasource": ds, "expr": expr, "legendFormat": p.legend, "range": true}},
		})
	}
	d := map[string]any{
		"uid":                  uid,
		"title":                title,
		"tags":                 []string{"cometlab", "cometbft"},
		"timezone":             "browser",
		"schemaVersion":        39,
		"version":              1,
		"editable":             true,
		"graphTooltip":         1,
		"refresh":              "5s",
		"time":                 map[string]string{"from": "now-15m", "to": "now"},
		"timepicker":           map[string]any{},
		"fiscalYearStartMonth": 0,
		"liveNow":              false,
		"annotations":          map[string]any{"list": []any{}},
		"links":                []any{},
		"templating": map[string]any{"list": []map[string]any{
			{"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus", "refresh": 1,
				"current": map[string]any{}, "hide": 0, "options": []any{}},
			{"name": "node", "label": "Node", "type": "query", "datasource": ds,
				"query":      map[string]any{"query": "label_values(" + ns + "_consensus_height, node)", "refId": "node"},
				"definition": "label_values(" + ns + "_consensus_height, node)",
				"refresh":    2, "multi": true, "includeAll": true, "allValue": ".*", "sort": 1,
				"current": map[string]any{"selected": true, "text": []string{"All"}, "value": []string{"$__all"}},
				"hide":    0, "options": []any{}},
		}},
		"panels": panels,
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
