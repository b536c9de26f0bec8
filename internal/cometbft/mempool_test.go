package cometbft

import (
	"strings"
	"testing"
)

func TestMempoolProblem(t *testing.T) {
	cases := []struct {
		version, mempool, want string // want: "" or a part of the problem
	}{
		{"v0.40.0", MempoolApp, ""},
		{"v0.40.0", MempoolNop, ""},
		{"v0.39.4", MempoolApp, ""},
		{"v0.39.1", MempoolApp, "app came with v0.39.2"},
		{"v0.38.26", MempoolApp, "has only the flood, nop mempool"},
		{"v0.38.1", MempoolNop, "nop came with v0.38.2"},
		{"v0.37.4", MempoolNop, ""},
		{"v0.34.33", MempoolNop, "has only the flood mempool"},
		{"v1.0.1", MempoolApp, "has only the flood, nop mempool"},
		{"v0.34.33", MempoolFlood, ""},
	}
	for _, c := range cases {
		t.Run(c.version+"/"+c.mempool, func(t *testing.T) {
			got := MempoolProblem(c.version, c.mempool)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("MempoolProblem(%s, %s) = %q, want %q", c.version, c.mempool, got, c.want)
			}
		})
	}
}

func TestAdaptiveSyncProblem(t *testing.T) {
	for v, has := range map[string]bool{"v0.40.0": true, "v0.39.0": true, "v0.38.26": false, "v1.0.1": false, "v2.0.0-rc1": false} {
		if got := AdaptiveSyncProblem(v); (got == "") != has {
			t.Errorf("AdaptiveSyncProblem(%s) = %q, want has = %v", v, got, has)
		}
	}
}
