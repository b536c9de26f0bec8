package cometbft

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Fetcher obtains cometbft binaries: `go install Module/cmd/cometbft@VERSION`
// into CacheDir/VERSION/, reused after the first build.
type Fetcher struct {
	CacheDir string    // e.g. $XDG_CACHE_HOME/cometlab/cometbft
	Progress io.Writer // progress lines while building; nil means none
}

// DefaultCacheDir returns the per-user cache directory for node binaries.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("user cache directory: %w", err)
	}
	return filepath.Join(d, "cometlab", "cometbft"), nil
}

// Binary returns the path of the cometbft binary for version, building it
// with go install when it is not cached. Concurrent callers (other cometlab
// processes too) wait for one build.
func (f *Fetcher) Binary(ctx context.Context, version string) (string, error) {
	if _, err := LineOf(version); err != nil {
		return "", err
	}
	dir := filepath.Join(f.CacheDir, version)
	bin := filepath.Join(dir, "cometbft")
	if ok, _ := executable(bin); ok {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if ok, _ := executable(bin); ok { // built by someone else meanwhile
		return bin, nil
	}
	if err := f.install(ctx, version, dir); err != nil {
		return "", err
	}
	return bin, nil
}

func (f *Fetcher) install(ctx context.Context, version, dir string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("build cometbft %s: the go command is not in PATH (cometlab builds CometBFT with go install): %w", version, err)
	}
	tmp, err := os.MkdirTemp(dir, ".build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pkg := Module + "/cmd/cometbft@" + version
	cmd := exec.CommandContext(ctx, goBin, "install", pkg)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	f.say("building cometbft %s (go install %s); the first build takes a couple of minutes", version, pkg)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("go install %s: %w", pkg, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("go install %s: %w", pkg, ctx.Err())
				}
				return fmt.Errorf("go install %s failed (%v); is the Go module proxy reachable? output:\n%s", pkg, err, tail(out.String(), 20))
			}
			f.say("built cometbft %s in %s", version, time.Since(start).Round(time.Second))
			return os.Rename(filepath.Join(tmp, "cometbft"), filepath.Join(dir, "cometbft"))
		case <-tick.C:
			f.say("  still building cometbft %s… %s", version, time.Since(start).Round(time.Second))
		}
	}
}

func (f *Fetcher) say(format string, a ...any) {
	if f.Progress != nil {
		fmt.Fprintf(f.Progress, format+"\n", a...)
	}
}

func executable(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return false, fmt.Errorf("%s is not an executable file", path)
	}
	return true, nil
}

// CheckBinary checks that a user-given binary exists and is executable.
func CheckBinary(path string) error {
	if _, err := executable(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cometbft binary %s: no such file", path)
		}
		return fmt.Errorf("cometbft binary: %w", err)
	}
	return nil
}

// ReportedVersion runs `BINARY version` and returns what it prints (note:
// some releases print a version other than their module tag; v0.40.0
// prints 0.39.0).
func ReportedVersion(ctx context.Context, binary string) (string, error) {
	out, err := exec.CommandContext(ctx, binary, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w", binary, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
