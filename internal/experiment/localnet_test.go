package experiment

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// TestCheckLocal: what a mode cannot honour is refused, as bad input,
// naming why; what it can is not.
func TestCheckLocal(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		mode    netMode
		want    string // "" means accepted
	}{
		{"default-explicit.good.toml", netRun, ""},
		{"default-explicit.good.toml", netShared, ""},
		{"default-explicit.good.toml", netUp, ""},
		{"zones.good.toml", netRun, ""},
		{"zones.good.toml", netShared, ""},
		{"zones.good.toml", netUp, "[zones]: the relays that emulate the links live in cometlab's process"},
		{"perturb.good.toml", netRun, ""},
		{"perturb.good.toml", netShared, "a shared testnet (--reuse-testnet) cannot be perturbed"},
		{"perturb.good.toml", netUp, "[[perturb]]: `testnet up` runs no load"},
		{"rotate.good.toml", netUp, "[rotate]: `testnet up` runs no load"},
		{"hosts.good.toml", netRun, ""}, // Run deploys it (runOnHosts)
		{"hosts.good.toml", netShared, "a shared testnet (--reuse-testnet) is a local one"},
		{"hosts.good.toml", netUp, "start them with `cometlab deploy`"},
		{"timescale.good.toml", netRun, ""},
		{"timescale.good.toml", netShared, ""},
		{"timescale.good.toml", netUp, "time_scale: `testnet up` runs no load"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			m, err := manifest.Load(filepath.Join("..", "..", "testdata", "manifests", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			err = checkLocal(r, tc.mode)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("mode %d: refused: %v", tc.mode, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("mode %d: got %v, want an error with %q", tc.mode, err, tc.want)
			case tc.want != "":
				if code, _ := exitcode.Of(err); code != exitcode.Usage {
					t.Errorf("mode %d: exit code %d, want %d", tc.mode, code, exitcode.Usage)
				}
			}
		})
	}
}
