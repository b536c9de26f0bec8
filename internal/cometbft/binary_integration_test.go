package cometbft

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinaryNoNetwork checks the error when the go command may not fetch
// modules: it names the version and the cause (GOPROXY=off), is not
// mistaken for a release that cannot be built, and leaves nothing in the
// cache. It runs the go command (with GOPROXY=off).
func TestBinaryNoNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-modcacherw")
	t.Setenv("GOMODCACHE", t.TempDir()) // nothing cached: every lookup needs the proxy
	f := &Fetcher{CacheDir: t.TempDir()}
	_, err := f.Binary(context.Background(), "v0.37.0-rc4")
	if err == nil {
		t.Fatal("built without a module proxy")
	}
	for _, want := range []string{"v0.37.0-rc4", "GOPROXY=off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if errors.Is(err, ErrNotBuildable) {
		t.Errorf("an unreachable proxy is not a release that cannot be built: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(f.CacheDir, "v0.37.0-rc4")); serr == nil {
		t.Error("a failed look-up left a cache directory")
	}
}
