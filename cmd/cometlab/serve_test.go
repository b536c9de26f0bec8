package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
)

// syncBuffer is a bytes.Buffer that a command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeCLI: serve --root indexes the fixture run, answers its API on
// the port it picked, and stops on the context's end with exit 0.
func TestServeCLI(t *testing.T) {
	root := t.TempDir()
	histRun(t, filepath.Join(root, "r1"), 1, "v0.38.26", 200)
	index := filepath.Join(t.TempDir(), "history.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, &state{stdout: &out, stderr: &errs, args: []string{"serve", "--index", index, "--root", root, "--listen", "127.0.0.1:0"}, hard: context.Background()})
	}()
	addr := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
	var m []string
	for deadline := time.Now().Add(30 * time.Second); m == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		m = addr.FindStringSubmatch(out.String())
	}
	if m == nil {
		cancel()
		t.Fatalf("no address\n%s%s", out.String(), errs.String())
	}
	resp, err := http.Get("http://" + m[1] + "/api/runs")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Runs []history.Run `json:"runs"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if err != nil || len(page.Runs) != 1 || page.Runs[0].Dir != filepath.Join(root, "r1") {
		t.Errorf("api/runs: %v %+v", err, page.Runs)
	}
	cancel()
	if code := <-done; code != exitcode.OK || !strings.Contains(out.String(), "1 runs indexed") || !strings.Contains(out.String(), "serve: stopped") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errs.String())
	}
}

func TestServeUsage(t *testing.T) {
	index := filepath.Join(t.TempDir(), "history.db")
	for _, listen := range []string{"8080", "127.0.0.1"} {
		if code, _, errs := run(t, "serve", "--index", index, "--listen", listen); code != exitcode.Usage || !strings.Contains(errs, "--listen") {
			t.Errorf("--listen %s: exit %d, %s", listen, code, errs)
		}
	}
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "127.1.2.3": true, "": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "example.com": false} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v", host, got)
		}
	}
}
