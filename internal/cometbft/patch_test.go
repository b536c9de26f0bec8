package cometbft

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// libp2pPatch is the libp2p fix of testdata/patches.
const libp2pPatch = "../../testdata/patches/v0.40.0-libp2p-noblock-close.diff"

// v040Stream copies v0.40.0's lp2p/stream.go (the module cache's, as the
// go command downloads it) into a directory of its own.
func v040Stream(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", Module+"@v0.40.0").Output()
	if err != nil {
		t.Skipf("v0.40.0's module source: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	i := strings.Index(dir, `"Dir": "`)
	if i < 0 {
		t.Fatalf("go mod download: %s", out)
	}
	dir = dir[i+len(`"Dir": "`):]
	dir = dir[:strings.Index(dir, `"`)]
	b, err := os.ReadFile(filepath.Join(dir, "lp2p", "stream.go"))
	if err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "lp2p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "lp2p", "stream.go"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestLibP2PPatchApplies applies the libp2p fix to v0.40.0's
// lp2p/stream.go: the send half-closes and finishes the close in a
// goroutine; the same patch with a context line that v0.40.0 lacks is
// refused naming the file and the hunk's line.
func TestLibP2PPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	tree := v040Stream(t)
	if err := applyPatch(ctx, tree, libp2pPatch); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(tree, "lp2p", "stream.go"))
	for _, want := range []string{"if err := s.CloseWrite(); err != nil {", "go func() { _ = closeStream(s) }()"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("patched stream.go lacks %q", want)
		}
	}
	patch, err := os.ReadFile(libp2pPatch)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(patch), ` 		return errors.Wrap(err, "send failed")`, ` 		return errors.Wrap(err, "sent failed")`, 1)
	if broken == string(patch) {
		t.Fatal("the patch has no context line to break")
	}
	bad := filepath.Join(t.TempDir(), "broken.diff")
	if err := os.WriteFile(bad, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	err = applyPatch(ctx, v040Stream(t), bad)
	if !errors.Is(err, ErrPatch) || !strings.Contains(err.Error(), "patch failed: lp2p/stream.go:74") || !strings.Contains(err.Error(), bad) {
		t.Errorf("broken patch: %v", err)
	}
}

// TestLibP2PPatchBuilds builds v0.40.0 with the libp2p fix (the cache's,
// shared with the runs) and runs the binary.
func TestLibP2PPatchBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a patched CometBFT")
	}
	dir, err := DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(libp2pPatch)
	f := &Fetcher{CacheDir: dir, Progress: os.Stderr}
	bin, rec, err := f.SourceProgram(context.Background(), Source{Release: "v0.40.0", Patches: []string{abs}}, NodeProgram)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Line != "v0.40" || len(rec.Patches) != 1 {
		t.Errorf("record %+v", rec)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "0.39.0" {
		t.Errorf("%s version: %q, %v", bin, out, err)
	}
}
