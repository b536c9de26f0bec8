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
// cache.
func TestBinaryNoNetwork(t *testing.T) {
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

func TestBinaryCachedAndBadVersion(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "v0.38.1", "cometbft")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &Fetcher{CacheDir: dir}
	got, err := f.Binary(context.Background(), "v0.38.1")
	if err != nil || got != bin {
		t.Errorf("cached binary: %q, %v", got, err)
	}
	if _, err := f.Binary(context.Background(), "latest"); err == nil {
		t.Error("want an error for a malformed version")
	}
	if err := CheckBinary(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("CheckBinary of a missing file: %v", err)
	}
}
