package cometbft

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
