package cometbft

import (
	"strings"
	"testing"
)

// TestStorageKnobs: the storage matrix has pruning on every line with the
// e2e app's retain_blocks, compaction and key layout where the line added
// them (v1.0, kept by v2.0), pebbledb where it is the default.
func TestStorageKnobs(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"v0.34.33", "pruning"},
		{"v0.38.26", "pruning"},
		{"v0.40.0", "pruning"},
		{"v1.0.1", "pruning compaction key layout backend"},
		{"v2.0.0-rc1", "pruning compaction key layout backend"},
		{"v9.9.9", ""},
	} {
		t.Run(tt.version, func(t *testing.T) {
			var names []string
			for _, k := range StorageKnobs(tt.version) {
				names = append(names, k.Name)
				if len(k.Values) != 2 || k.Key == "" || k.What == "" {
					t.Errorf("%+v", k)
				}
			}
			if got := strings.Join(names, " "); got != tt.want {
				t.Errorf("knobs %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHasConfigKey(t *testing.T) {
	for _, tt := range []struct {
		version, key string
		want         bool
	}{
		{"v1.0.1", "storage.compact", true},
		{"v2.0.0-rc1", "storage.compact", true},       // added by its parent v1.0
		{"v0.40.0", "storage.compact", false},         // v0.40 branched before v1.0
		{"v0.38.26", "mempool.recheck_timeout", true}, // added by v0.38
		{"v1.0.1", "mempool.recheck_timeout", true},   // v1.0's parent added it
		{"v1.0.1", "rpc.grpc_laddr", false},           // removed by v1.0
		{"v2.0.0-rc1", "consensus.timeout_prevote", false},
		{"v0.38.26", "block_sync", false}, // added by v0.37, removed by v0.38
		{"v0.37.18", "block_sync", true},
		{"bad", "storage.compact", false},
	} {
		if got := HasConfigKey(tt.version, tt.key); got != tt.want {
			t.Errorf("HasConfigKey(%s, %s) = %v, want %v", tt.version, tt.key, got, tt.want)
		}
	}
}
