package web

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results"
)

// now is the tests' clock: ages (since=7d) are read at it.
var now = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// openIndex opens a new index in a temporary directory, closed with the
// test.
func openIndex(t testing.TB) *history.Index {
	t.Helper()
	x, err := history.Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// newHandler is a Server's handler over x, with the default change-point
// method and the tests' clock.
func newHandler(t testing.TB, x *history.Index) http.Handler {
	t.Helper()
	s, err := New(Config{Index: x, Detect: history.DefaultDetector(), Now: func() time.Time { return now }, LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return s.Handler()
}

// get asks h for target and returns the status and body.
func get(t testing.TB, h http.Handler, target string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = "127.0.0.1:8080"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// synthRuns are n runs of one series under root (directories that need
// not exist), one an hour from 2026-01-01: every judged figure drawn
// around its base (100; 1,000 for a latency) ± 10 %, 10 % lower from run
// 6n/10 on, and a new release every n/10 runs (v0.38.26, v0.38.27, …).
func synthRuns(n int, root string) []history.Run {
	rng := rand.New(rand.NewPCG(1, 2))
	figs := history.JudgedFigures()
	out := make([]history.Run, n)
	for i := range out {
		rel := fmt.Sprintf("v0.38.%d", 26+i/max(1, n/10))
		r := history.Run{Dir: filepath.Join(root, fmt.Sprintf("r%05d", i)), Kind: history.KindRun, ID: fmt.Sprintf("run-%d", i),
			Status: results.StatusComplete, Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour),
			Release: rel, Label: rel, Manifest: "8e6f43ac0649", App: "kvstore", Validators: 4,
			Load:    history.Load{Connections: 1, Rate: 200, Size: 1024, DurationS: 60},
			Host:    history.Host{Name: "qa-01", Cores: 8, CPU: "AMD EPYC 7763", MemBytes: 16 << 30, Arch: "amd64"},
			Figures: map[string]history.Figure{}}
		shift := 1.0
		if i >= 6*n/10 {
			shift = 0.9
		}
		for j, id := range figs {
			base := 100.0 + float64(j)
			if j%3 == 1 {
				base *= 10
			}
			r.Figures[id] = history.Figure{Value: base * shift * (0.9 + 0.2*rng.Float64())}
		}
		out[i] = r
	}
	return out
}
