package cometbft

import (
	"strings"
	"testing"
)

// TestCheckUpgrade: a patch upgrade within a line is allowed; a
// downgrade, the same release, an unknown release and the line pairs the
// facts say cannot share a network or a store are refused, with why.
func TestCheckUpgrade(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		err      string // "" allowed
	}{
		{from: "v1.0.0", to: "v1.0.1"},
		{from: "v0.38.17", to: "v0.38.26"},
		{from: "v0.38.26", to: "v0.39.4"}, // same store, same rules: the facts allow it
		{from: "v1.0.1", to: "v1.0.0", err: "a downgrade is refused"},
		{from: "v1.0.1", to: "v1.0.1", err: "already runs"},
		{from: "v1.0.0", to: "v3.0.0", err: "no release line cometlab knows"},
		{from: "v1.0.0", to: "latest", err: "malformed version"},
		{from: "v0.38.26", to: "v1.0.1", err: "default db_backend is goleveldb in v0.38 and pebbledb in v1.0"},
		{from: "v0.34.33", to: "v0.37.18", err: "ABCI 0.17.0 (v0.34) and ABCI 1.0.0 (v0.37)"},
		{from: "v0.37.18", to: "v0.38.26", err: "never starts"},
		{from: "v0.39.4", to: "v0.40.0", err: "cannot share a network"},
	} {
		t.Run(tc.from+"→"+tc.to, func(t *testing.T) {
			err := CheckUpgrade(tc.from, tc.to)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
}
