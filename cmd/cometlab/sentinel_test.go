package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestSentinelStops runs the command in-process and interrupts it: it
// serves, then stops cleanly with exit 0 (Ctrl-C is how it is meant to end).
func TestSentinelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var o, e bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, &state{stdout: &o, stderr: &e, hard: context.Background(), args: []string{"sentinel",
			"--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--drain-timeout", "100ms"}})
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, e.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop within 10 s of the interrupt")
	}
	if !strings.Contains(e.String(), "sentinel: 127.0.0.1:") || !strings.Contains(e.String(), "/metrics") {
		t.Fatalf("stderr does not say where it listens:\n%s", e.String())
	}
}
