package testnet_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/testnet"
)

// reading is one answer of a node's RPC.
type reading struct {
	h   int64
	err error
}

func TestHeights(t *testing.T) {
	refused := errors.New("connection refused")
	for _, tc := range []struct {
		name     string
		readings []reading
		advanced bool   // Advanced after the readings
		failed   bool   // the last reading failed, so Observe says false even when advanced
		why      string // of the StallError; "" when advanced
	}{
		{name: "no reading", why: "at height 0"},
		{name: "two above first", readings: []reading{{h: 5}, {h: 6}, {h: 7}}, advanced: true},
		{name: "jump", readings: []reading{{h: 3}, {h: 9}}, advanced: true},
		{name: "one above first", readings: []reading{{h: 5}, {h: 6}}, why: "at height 6"},
		{name: "height 0 is not a first height", readings: []reading{{h: 0}, {h: 1}, {h: 2}}, why: "at height 2"},
		{name: "first seen after 0", readings: []reading{{h: 0}, {h: 1}, {h: 2}, {h: 3}}, advanced: true},
		{name: "RPC down", readings: []reading{{err: refused}}, why: "RPC not answering: connection refused"},
		{name: "RPC down after a height", readings: []reading{{h: 4}, {err: refused}}, why: "RPC not answering: connection refused"},
		{name: "RPC back", readings: []reading{{h: 4}, {err: refused}, {h: 5}}, why: "at height 5"},
		{name: "error after advancing", readings: []reading{{h: 4}, {h: 6}, {err: refused}}, advanced: true, failed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hs testnet.Heights
			var got bool
			for _, r := range tc.readings {
				got = hs.Observe("validator01", r.h, r.err)
			}
			if want := tc.advanced && !tc.failed; got != want || hs.Advanced("validator01") != tc.advanced {
				t.Fatalf("Observe %v, Advanced %v; want %v, %v", got, hs.Advanced("validator01"), want, tc.advanced)
			}
			stall := hs.Stall("validator01", time.Minute)
			if tc.advanced {
				if stall != nil {
					t.Fatalf("Stall = %v, want nil", stall)
				}
				return
			}
			want := "node validator01 did not advance two heights within 1m0s (" + tc.why + ")"
			if stall == nil || stall.Error() != want {
				t.Fatalf("Stall = %v, want %q", stall, want)
			}
		})
	}
}

func TestHeightsPerNode(t *testing.T) {
	var hs testnet.Heights
	hs.Observe("a", 1, nil)
	hs.Observe("b", 7, nil)
	hs.Observe("a", 3, nil)
	if !hs.Advanced("a") || hs.Advanced("b") {
		t.Fatalf("advanced a %v b %v, want true false", hs.Advanced("a"), hs.Advanced("b"))
	}
}

// fakeChain is an in-process height source: each read returns the next of
// its heights, then the last one again.
type fakeChain struct {
	mu      sync.Mutex
	heights []int64
	err     error
	reads   int
}

func (f *fakeChain) Height(context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return 0, f.err
	}
	h := f.heights[min(f.reads, len(f.heights))-1]
	return h, nil
}

func TestWaitAdvanced(t *testing.T) {
	growing := func() *fakeChain { return &fakeChain{heights: []int64{1, 2, 3}} }
	t.Run("all advance; the skipped one is never read", func(t *testing.T) {
		seed := &fakeChain{err: errors.New("must not be read")}
		nodes := []testnet.Watched{{Name: "v1", RPC: growing()}, {Name: "seed", RPC: seed, Skip: true}, {Name: "v2", RPC: growing()}}
		if err := testnet.WaitAdvanced(context.Background(), nodes, 10*time.Second, nil); err != nil {
			t.Fatal(err)
		}
		if seed.reads != 0 {
			t.Fatalf("the skipped node was read %d times", seed.reads)
		}
	})
	t.Run("stalled node named", func(t *testing.T) {
		nodes := []testnet.Watched{{Name: "v1", RPC: growing()}, {Name: "v2", RPC: &fakeChain{heights: []int64{4}}}}
		err := testnet.WaitAdvanced(context.Background(), nodes, 600*time.Millisecond, nil)
		var stall *testnet.StallError
		if !errors.As(err, &stall) || stall.Node != "v2" || stall.Why != "at height 4" || stall.Timeout != 600*time.Millisecond {
			t.Fatalf("err = %v, want a StallError for v2 at height 4", err)
		}
	})
	t.Run("RPC error quoted", func(t *testing.T) {
		nodes := []testnet.Watched{{Name: "v1", RPC: &fakeChain{err: errors.New("connection refused")}}}
		err := testnet.WaitAdvanced(context.Background(), nodes, 300*time.Millisecond, nil)
		if err == nil || !strings.Contains(err.Error(), "node v1 did not advance two heights within 300ms (RPC not answering: connection refused)") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("check ends the wait", func(t *testing.T) {
		exited := errors.New("node v1 exited")
		nodes := []testnet.Watched{{Name: "v1", RPC: &fakeChain{heights: []int64{1}}}}
		err := testnet.WaitAdvanced(context.Background(), nodes, 10*time.Second, func(int) error { return exited })
		if !errors.Is(err, exited) {
			t.Fatalf("err = %v, want %v", err, exited)
		}
	})
	t.Run("canceled is not a stall", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		nodes := []testnet.Watched{{Name: "v1", RPC: &fakeChain{heights: []int64{1}}}}
		if err := testnet.WaitAdvanced(ctx, nodes, 10*time.Second, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}
