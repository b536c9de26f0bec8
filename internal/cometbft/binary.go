package cometbft

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Fetcher obtains cometbft binaries, built once per release into
// CacheDir/VERSION/ (the binary and its build.json) and reused after: with
// go install where it works, otherwise from the release's module source
// built as the main module (see [Plan]).
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

// Program is a main package of a CometBFT release that cometlab builds
// and caches beside the node binary.
type Program struct {
	Name string // the file name in the version's cache directory
	Pkg  string // the package path inside the release's module, e.g. "cmd/cometbft"
	Tags string // build tags, comma-separated; "" for none
	// CGO builds it with CGO_ENABLED=1 (a tag whose code is C, such as
	// bls12381's blst); the others are built with CGO_ENABLED=0, static.
	CGO bool
	// Own marks cometlab's own program ([KeygenProgram]): its main
	// package is written into the release's module source, which is then
	// built as the main module, whatever the release's build method.
	Own bool
}

// WithTag returns p built with the build tag too, under its own name in
// the cache ("cometbft-bls12381"), with cgo when cgo is set.
func (p Program) WithTag(tag string, cgo bool) Program {
	if tag == "" || slices.Contains(strings.Split(p.Tags, ","), tag) {
		return p
	}
	p.Name += "-" + tag
	if p.Tags != "" {
		p.Tags += ","
	}
	p.Tags += tag
	p.CGO = p.CGO || cgo
	return p
}

// ForKey returns p built for validators of key type k: with k's build tag
// (and cgo when it needs it), or p itself for a type without one.
func (p Program) ForKey(k KeyType) Program { return p.WithTag(k.Tag, k.CGO) }

var (
	// NodeProgram is the cometbft node binary.
	NodeProgram = Program{Name: "cometbft", Pkg: "cmd/cometbft"}
	// E2ENodeProgram is CometBFT's e2e app node (test/e2e/node): the QA
	// app and a node in one process, configured by an app.toml file.
	E2ENodeProgram = Program{Name: "e2e-node", Pkg: "test/e2e/node"}
	// ABCICLIProgram is abci-cli, whose `kvstore` command serves the
	// release's kvstore as an external ABCI app (socket or grpc).
	ABCICLIProgram = Program{Name: "abci-cli", Pkg: "abci/cmd/abci-cli"}
	// ClockSkewProgram is the cometbft node binary built with the
	// clock_skew tag (releases whose Line has ClockSkew): its clock is
	// offset by COMETBFT_CLOCK_SKEW, as the e2e runner skews a node's.
	ClockSkewProgram = Program{Name: "cometbft-clock-skew", Pkg: "cmd/cometbft", Tags: "clock_skew"}
	// ClockSkewE2EProgram is the e2e app node built with the clock_skew
	// tag, for a skewed node of the e2e app.
	ClockSkewE2EProgram = Program{Name: "e2e-node-clock-skew", Pkg: "test/e2e/node", Tags: "clock_skew"}
)

// ClockSkewEnv is the environment variable a [ClockSkewProgram] node
// reads its clock's offset from (a Go duration).
const ClockSkewEnv = "COMETBFT_CLOCK_SKEW"

// recordFile is the program's build record in the version's cache
// directory.
func (p Program) recordFile() string {
	if p == NodeProgram {
		return buildRecordFile
	}
	return p.Name + "." + buildRecordFile
}

// Binary returns the path of the cometbft binary for version, building it
// when it is not cached. Concurrent callers (other cometlab processes too)
// wait for one build. A release that cannot be built here gives a
// *[BuildError] (errors.Is [ErrNotBuildable]) saying why and naming the
// nearest release of its line that builds.
func (f *Fetcher) Binary(ctx context.Context, version string) (string, error) {
	return f.Program(ctx, version, NodeProgram)
}

// Program returns the path of program prog of release version, building
// it as [Fetcher.Binary] builds the node binary (same plan, cache
// directory and lock).
func (f *Fetcher) Program(ctx context.Context, version string, prog Program) (string, error) {
	if _, err := LineOf(version); err != nil {
		return "", err
	}
	dir := filepath.Join(f.CacheDir, version)
	bin := filepath.Join(dir, prog.Name)
	if ok, _ := executable(bin); ok {
		return bin, nil
	}
	g, err := f.goTool()
	if err != nil {
		return "", fmt.Errorf("build %s %s: %w", prog.Name, version, err)
	}
	p, err := plan(ctx, g, version)
	if err != nil {
		return "", fmt.Errorf("build %w", err)
	}
	if !p.Buildable() {
		return "", f.notBuildable(ctx, g, p)
	}
	if err := checkCGO(ctx, g, prog); err != nil {
		return "", fmt.Errorf("build %s %s: %w", prog.Name, version, err)
	}
	unlock, err := lockBuildDir(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	if ok, _ := executable(bin); ok { // built by someone else meanwhile
		return bin, nil
	}
	if err := f.build(ctx, g, p, prog, dir); err != nil {
		return "", err
	}
	return bin, nil
}

// lockBuildDir creates the build directory dir and takes its build lock
// (dir/.lock, flock: other cometlab processes wait too); unlock releases
// it.
func lockBuildDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}, nil
}

// goTool returns the go command runner, working in the cache directory.
func (f *Fetcher) goTool() (goTool, error) {
	if err := os.MkdirAll(f.CacheDir, 0o755); err != nil {
		return goTool{}, err
	}
	return newGoTool(f.CacheDir, f.say)
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
