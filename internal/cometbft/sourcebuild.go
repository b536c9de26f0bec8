package cometbft

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sourceCacheDir is where source builds are cached, one directory per
// [SourceRecord.Key] (its first 16 hex digits).
const sourceCacheDir = "source"

// SourceProgram returns the path of program prog built from src, and the
// source's record. The build is cached by what was built (a tree's commit
// and the hash of its uncommitted changes, or its files' hash; a release;
// the patches' hashes): an unchanged source is built once, a changed one
// again. The tree's files (a git tree's tracked and untracked ones, not
// the ignored) are copied out, the patches applied to the copy, and the
// copy built as the main module with its own go.mod, as a release's
// module source is. A source that does not build gives the build's own
// error; a patch that does not apply, git apply's (naming the file and
// line of the hunk).
func (f *Fetcher) SourceProgram(ctx context.Context, src Source, prog Program) (string, SourceRecord, error) {
	rec, err := ReadSource(ctx, src)
	if err != nil {
		return "", rec, err
	}
	dir := filepath.Join(f.CacheDir, sourceCacheDir, rec.Key[:16])
	bin := filepath.Join(dir, prog.Name)
	if ok, _ := executable(bin); ok {
		return bin, rec, nil
	}
	g, err := f.goTool()
	if err != nil {
		return "", rec, fmt.Errorf("build %s from %s: %w", prog.Name, src, err)
	}
	if err := checkCGO(ctx, g, prog); err != nil {
		return "", rec, fmt.Errorf("build %s from %s: %w", prog.Name, src, err)
	}
	unlock, err := lockBuildDir(dir)
	if err != nil {
		return "", rec, err
	}
	defer unlock()
	if ok, _ := executable(bin); ok { // built by someone else meanwhile
		return bin, rec, nil
	}
	return bin, rec, f.buildSource(ctx, g, src, rec, prog, dir)
}

// buildSource copies the source into a temporary directory of dir,
// applies the patches, builds prog into dir and writes its build record.
func (f *Fetcher) buildSource(ctx context.Context, g goTool, src Source, rec SourceRecord, prog Program, dir string) error {
	tmp, err := os.MkdirTemp(dir, ".build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	code := filepath.Join(tmp, "src")
	if src.Tree != "" {
		if err := copyFiles(src.Tree, rec.files, code); err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
	} else if code, err = copySource(ctx, g, src.Release, tmp); err != nil {
		return err
	}
	for _, p := range src.Patches {
		if err := applyPatch(ctx, code, p); err != nil {
			return err
		}
	}
	if prog.Own {
		if err := writeOwnSource(prog, rec.Version, code); err != nil {
			return err
		}
	}
	f.say("building %s from %s; the first build takes a minute or two", prog.Name, rec.Label())
	bin := filepath.Join(tmp, prog.Name)
	if out, err := goBuild(ctx, g, prog, code, bin); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build %s from %s: %w", prog.Name, rec.Label(), ctx.Err())
		}
		return fmt.Errorf("build %s from %s failed: %w; output:\n%s", prog.Name, rec.Label(), err, tail(string(out), 20))
	}
	br := BuildRecord{Version: rec.Version, Method: MethodMainModule, Declares: rec.Module, GoVersion: g.env(ctx, "GOVERSION"),
		Seconds: time.Since(start).Round(100 * time.Millisecond).Seconds(), Built: time.Now().UTC(), Source: &rec}
	f.say("built %s from %s in %s", prog.Name, rec.Label(), time.Since(start).Round(time.Second))
	return install(br, prog, bin, dir)
}

// goBuild builds prog's package of the main module in dir into bin, as
// a release's module source is built, and returns the build's output.
func goBuild(ctx context.Context, g goTool, prog Program, dir, bin string) ([]byte, error) {
	cgo := "CGO_ENABLED=0"
	if prog.CGO {
		cgo = "CGO_ENABLED=1"
	}
	args := append([]string{"build", "-mod=readonly", "-trimpath", "-buildvcs=false"}, prog.tagArgs()...)
	_, out, err := g.run(ctx, dir, "building "+prog.Name, []string{cgo}, append(args, "-o", bin, "./"+prog.Pkg)...)
	return out, err
}

// applyPatch applies the patch file to the source in dir with git apply:
// it applies a patch whole or not at all, with no fuzz (patch -p1 would
// shift a hunk silently, or apply some hunks and not others), and when it
// refuses it names the file and line of the hunk ("error: patch failed:
// lp2p/peer.go:98"). git is kept from taking dir for part of a
// repository, which would make it skip the patch's files silently.
func applyPatch(ctx context.Context, dir, patch string) error {
	abs, err := filepath.Abs(patch) // git runs in dir
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "git", "apply", "--whitespace=nowarn", abs)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("apply patch %s: %w", patch, err)
		}
		return fmt.Errorf("%w: %s: git apply: %s", ErrPatch, patch, strings.TrimSpace(out.String()))
	}
	return nil
}

// ErrPatch is matched (errors.Is) by the error for a patch that does not
// apply.
var ErrPatch = errors.New("patch does not apply")

// SourceBuilt returns the cached binary of prog built from the source of
// rec, "" when it has not been built.
func (f *Fetcher) SourceBuilt(rec SourceRecord, prog Program) string {
	bin := filepath.Join(f.CacheDir, sourceCacheDir, rec.Key[:16], prog.Name)
	if ok, _ := executable(bin); ok {
		return bin
	}
	return ""
}
