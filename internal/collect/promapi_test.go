package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// fakeProm answers query_range like Prometheus for a few series: each
// node's consensus_height (value = seconds since t0), a histogram _count
// and a series the default selection does not keep. Node "a" is labelled
// by node, node "b" only by instance.
type fakeProm struct {
	t0 time.Time
	mu sync.Mutex
	// requests made, as "query start end step"
	requests []string
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query_range" || r.ParseForm() != nil {
		http.Error(w, "bad", http.StatusBadRequest)
		return
	}
	q := r.Form.Get("query")
	f.mu.Lock()
	f.requests = append(f.requests, fmt.Sprintf("%s %s %s %s", q, r.Form.Get("start"), r.Form.Get("end"), r.Form.Get("step")))
	f.mu.Unlock()
	m := regexp.MustCompile(`^\{__name__=~"([^"]+)",(node|instance)="([^"]+)"(,quantile="")?\}$`).FindStringSubmatch(q)
	if m == nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"status":"error","errorType":"bad_data","error":"parse error in %q"}`, q)
		return
	}
	nameRE := regexp.MustCompile("^(?:" + m[1] + ")$")
	start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
	end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
	step, _ := strconv.ParseFloat(r.Form.Get("step"), 64)
	type series struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	var out []series
	add := func(labels map[string]string, value func(t float64) float64) {
		if !nameRE.MatchString(labels["__name__"]) || m[4] != "" && labels["quantile"] != "" {
			return
		}
		s := series{Metric: labels}
		for t := start; t <= end+1e-9; t += step {
			s.Values = append(s.Values, [2]any{t, strconv.FormatFloat(value(t), 'g', -1, 64)})
		}
		out = append(out, s)
	}
	since := func(t float64) float64 { return math.Round(t - float64(f.t0.Unix())) }
	switch {
	case m[2] == "node" && m[3] == "a":
		add(map[string]string{"__name__": "cometbft_consensus_height", "chain_id": "c", "job": "j", "instance": "127.0.0.1:1", "node": "a"}, since)
		add(map[string]string{"__name__": "cometbft_consensus_block_interval_seconds_count", "chain_id": "c", "job": "j", "instance": "127.0.0.1:1", "node": "a"}, since)
		add(map[string]string{"__name__": "go_gc_duration_seconds", "quantile": "0.5", "job": "j", "instance": "127.0.0.1:1", "node": "a"}, since)
		add(map[string]string{"__name__": "go_memstats_heap_alloc_bytes", "job": "j", "instance": "127.0.0.1:1", "node": "a"}, since)
	case m[2] == "instance" && m[3] == "127.0.0.1:2":
		add(map[string]string{"__name__": "cometbft_consensus_height", "chain_id": "c", "job": "j", "instance": "127.0.0.1:2"}, func(t float64) float64 { return 2 * since(t) })
	}
	json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix", "result": out}})
}

func TestPromAPIReadRange(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	fake := &fakeProm{t0: t0}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := t.TempDir()
	w, err := results.Create(filepath.Join(dir, results.MetricsFile), results.MetricsHeader)
	if err != nil {
		t.Fatal(err)
	}
	q := RangeQuery{
		Nodes: []PromNode{{Name: "a", Instance: "127.0.0.1:1"}, {Name: "b", Instance: "127.0.0.1:2"}, {Name: "c", Instance: "127.0.0.1:3"}},
		Start: t0, End: t0.Add(1499 * time.Second), Step: time.Second,
	}
	stats, err := NewPromAPI(srv.URL+"/", nil).ReadRange(context.Background(), q, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []PromStats{{Node: "a", Series: 2, Rows: 3000, MatchBy: "node"}, {Node: "b", Series: 1, Rows: 1500, MatchBy: "instance"}, {Node: "c"}}
	if fmt.Sprint(stats) != fmt.Sprint(want) {
		t.Errorf("stats %+v, want %+v", stats, want)
	}
	rows, err := results.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]int64{}
	for _, r := range rows {
		sec := float64(r.Time-t0.UnixNano()) / 1e9
		switch {
		case r.Node == "a" && r.Name == "cometbft_consensus_height" && r.Labels == "chain_id=c" && r.Value == sec:
		case r.Node == "a" && r.Name == "cometbft_consensus_block_interval_seconds_count" && r.Labels == "chain_id=c" && r.Value == sec:
		case r.Node == "b" && r.Name == "cometbft_consensus_height" && r.Labels == "chain_id=c" && r.Value == 2*sec:
		default:
			t.Fatalf("unexpected row %+v", r)
		}
		if r.Time < last[r.Node] {
			t.Fatalf("rows of %s not in time order at %+v", r.Node, r)
		}
		last[r.Node] = r.Time
	}
	// 1500 steps in windows of 600: three windows; node a is found by its
	// node label; node b by instance after trying node in the first window
	// only; node c, never found, is tried both ways in every window.
	if n := len(fake.requests); n != (1+2+2)+2*(1+1+2) {
		t.Errorf("%d requests:\n%s", n, strings.Join(fake.requests, "\n"))
	}
	if !strings.Contains(fake.requests[0], "1800000000.000 1800000599.000 1") {
		t.Errorf("first window %q", fake.requests[0])
	}
}

func TestPromAPIErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"status":"error","errorType":"execution","error":"query processing would load too many samples"}`)
	}))
	defer srv.Close()
	w, err := results.Create(filepath.Join(t.TempDir(), results.MetricsFile), results.MetricsHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	t0 := time.Unix(1_800_000_000, 0)
	_, err = NewPromAPI(srv.URL, nil).ReadRange(context.Background(), RangeQuery{Nodes: []PromNode{{Name: "a"}}, Start: t0, End: t0.Add(time.Minute)}, w)
	if err == nil || !strings.Contains(err.Error(), "too many samples") || !strings.Contains(err.Error(), "422") {
		t.Errorf("err = %v", err)
	}
	_, err = NewPromAPI(srv.URL, nil).ReadRange(context.Background(), RangeQuery{Start: t0, End: t0}, w)
	if err == nil {
		t.Error("empty window: no error")
	}
}

func TestDecodeQueryRange(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // fmt of the series, or the error's text
	}{
		{"matrix", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x","a":"1"},"values":[[1700000000.5,"2"],[1700000001,"NaN"]]}]}}`,
			"[{map[__name__:x a:1] [{1700000000500000000 2} {1700000001000000000 NaN}]}]"},
		{"empty", `{"status":"success","data":{"resultType":"matrix","result":[]}}`, "[]"},
		{"inf", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1,"+Inf"]]}]}}`, "[{map[__name__:x] [{1000000000 +Inf}]}]"},
		{"error", `{"status":"error","errorType":"bad_data","error":"invalid parameter"}`, "bad_data: invalid parameter"},
		{"vector", `{"status":"success","data":{"resultType":"vector","result":[]}}`, `result type "vector", want matrix`},
		{"bad value", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1,"one"]]}]}}`, "invalid syntax"},
		{"value not a string", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1,2]]}]}}`, "sample value"},
		{"no name", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[]}]}}`, "without __name__"},
		{"not json", `<html>`, "decode response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeQueryRange([]byte(tt.in))
			s := fmt.Sprint(got)
			if err != nil {
				s = err.Error()
			}
			if !strings.Contains(s, tt.want) {
				t.Errorf("got %s, want %s", s, tt.want)
			}
		})
	}
}

// FuzzDecodeQueryRange: never panics; decoded series have a name and
// their labels do not start with __name__.
func FuzzDecodeQueryRange(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x","job":"j","a":"1"},"values":[[1700000000.5,"2"]]}]}}`))
	f.Add([]byte(`{"status":"error","errorType":"bad_data","error":"e"}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"x"},"values":[[1e300,"1"]]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		series, err := decodeQueryRange(b)
		if err != nil {
			return
		}
		for _, s := range series {
			name, labels := s.nameLabels()
			if name == "" || strings.HasPrefix(labels, "__name__=") {
				t.Fatalf("series %v → %q %q", s.Metric, name, labels)
			}
			for _, p := range s.Values {
				if p.T > 9e18 || p.T < -9e18 {
					t.Fatalf("time %d", p.T)
				}
			}
		}
	})
}
