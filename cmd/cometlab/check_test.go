package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// e2eFixtures are the real e2e manifests (cometbft, qa-infra).
var e2eFixtures = filepath.Join("..", "..", "internal", "manifest", "testdata", "e2e")

// TestManifestCheck checks what `cometlab manifest check` prints and its
// exit code: an e2e manifest that runs (simple.toml), one that runs only
// with --lenient (varyVESize's prometheus = false is one of its refusals,
// so it stays refused; single.toml forced to e2e runs), example.toml
// (seeds, a validator that starts at height 10, disconnects), and one of
// cometlab's own.
func TestManifestCheck(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"check_simple.txt", []string{filepath.Join(e2eFixtures, "simple.toml")}, exitcode.OK},
		{"check_example.txt", []string{filepath.Join(e2eFixtures, "example.toml")}, exitcode.OK},
		{"check_single_e2e.txt", []string{"--format", "e2e", filepath.Join(e2eFixtures, "single.toml")}, exitcode.OK},
		{"check_lenient.txt", []string{"--lenient", filepath.Join("testdata", "e2e-lenient.toml")}, exitcode.OK},
		{"check_full.txt", []string{filepath.Join("..", "..", "testdata", "manifests", "full.good.toml")}, exitcode.OK},
		{"check_rotating.txt", []string{filepath.Join(e2eFixtures, "rotating.toml")}, exitcode.OK},
		{"check_timescale.txt", []string{filepath.Join("..", "..", "testdata", "manifests", "timescale.good.toml")}, exitcode.OK},
	} {
		t.Run(c.golden, func(t *testing.T) {
			code, out, stderr := run(t, append([]string{"manifest", "check"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, stderr)
			}
			if c.code != exitcode.OK && !strings.Contains(stderr, "problems (listed above)") {
				t.Errorf("stderr %q does not say how many problems", stderr)
			}
			resultstest.Golden(t, filepath.Join("testdata", "check", c.golden), []byte(out))
		})
	}
}
