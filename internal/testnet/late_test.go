package testnet_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/testnet"
)

func TestWaitHeight(t *testing.T) {
	t.Run("the highest node counts", func(t *testing.T) {
		down := &fakeChain{err: errors.New("connection refused")}
		slow, fast := &fakeChain{heights: []int64{1, 2}}, &fakeChain{heights: []int64{3, 5, 6}}
		h, err := testnet.WaitHeight(context.Background(), []testnet.HeightReader{down, slow, fast}, 5, 10*time.Second)
		if err != nil || h != 5 {
			t.Fatalf("WaitHeight = %d, %v; want 5 (fast's second reading)", h, err)
		}
	})
	t.Run("timeout gives the highest seen and the last RPC error", func(t *testing.T) {
		nodes := []testnet.HeightReader{&fakeChain{heights: []int64{2, 3}}, &fakeChain{err: errors.New("connection refused")}}
		h, err := testnet.WaitHeight(context.Background(), nodes, 10, 500*time.Millisecond)
		if h != 3 || err == nil || !strings.Contains(err.Error(), "height 10 not reached within 500ms (highest seen 3); last RPC error: connection refused") {
			t.Fatalf("WaitHeight = %d, %v", h, err)
		}
	})
	t.Run("canceled is not a timeout", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := testnet.WaitHeight(ctx, []testnet.HeightReader{&fakeChain{heights: []int64{1}}}, 10, 10*time.Second)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// TestLate: the late nodes in StartLate's order (start_at, then name).
func TestLate(t *testing.T) {
	tn := testnet.New([]cometbft.Home{{Name: "v1"}, {Name: "v3", StartAt: 8}, {Name: "v2", StartAt: 8}, {Name: "f1", StartAt: 4}}, nil)
	var got []string
	for _, n := range tn.Late() {
		got = append(got, n.Name)
	}
	if strings.Join(got, " ") != "f1 v2 v3" {
		t.Errorf("Late = %v, want f1 v2 v3", got)
	}
}
