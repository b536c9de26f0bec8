package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
)

// TestVersionsCommand lists the releases against the real module proxy:
// the proven ones are there, v0.34.35 is not buildable for the refused
// modules, with v0.34.33 offered instead; asking to run it is bad input
// (exit 2) with the same reasons. It needs the module proxy, so -short
// skips it.
func TestVersionsCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the Go module proxy")
	}
	code, out, stderr := run(t, "versions")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, w := range []string{"RELEASE", "v0.34.33", "v0.37.18", "v0.38.26", "v0.39.4", "v0.40.0", "v1.0.1",
		"default, matrix", "not buildable", "use v0.34.33", "v0.34.35 cannot be built here",
		"github.com/informalsystems/kit@", "403 Forbidden", "binaries: "} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	runDir := filepath.Join(t.TempDir(), "run")
	code, _, stderr = run(t, "run", "--cometbft-version", "v0.34.35", "--out", runDir)
	if code != exitcode.Usage {
		t.Errorf("run v0.34.35: exit %d, want %d\n%s", code, exitcode.Usage, stderr)
	}
	if _, err := os.Stat(runDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused release left a run directory (stat: %v)", err)
	}
	for _, w := range []string{"v0.34.35 cannot be built here", "github.com/informalsystems/afero@", "--cometbft-version v0.34.33"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("run v0.34.35: stderr lacks %q:\n%s", w, stderr)
		}
	}
	if code, _, stderr := run(t, "versions", "--build", "latest"); code != exitcode.Usage || !strings.Contains(stderr, "malformed") {
		t.Errorf("versions --build latest: exit %d\n%s", code, stderr)
	}
}
