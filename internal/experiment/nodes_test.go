package experiment

import "testing"

func TestMempoolCapacity(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  map[string]any
		size int
		want int64
	}{
		{"defaults, 1 KiB txs", nil, 1024, 5000},
		{"mempool.size", map[string]any{"mempool.size": int64(10000)}, 1024, 10000},
		{"bytes bind first for big txs", nil, 1 << 20, 1024},
		{"both set", map[string]any{"mempool.size": int64(10000), "mempool.max_txs_bytes": int64(4 << 20)}, 1024, 4096},
	} {
		if got := mempoolCapacity(c.cfg, c.size); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
