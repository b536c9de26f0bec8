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

// trees are the fake CometBFT trees of the repository's testdata: a go.mod,
// a version file, a types/params.go and a cmd/cometbft that builds.
const trees = "../../testdata/trees"

// TestReadTree tells the line of fake trees from their version file and
// key types, and refuses what is not a tree or has no line, by reason.
func TestReadTree(t *testing.T) {
	for _, c := range []struct {
		tree, line, version, err string
		is                       error
	}{
		// v0.40.0 declares v0.39's 0.39.0: its key types tell it apart.
		{tree: "v0.40", line: "v0.40", version: "v0.40.0"},
		{tree: "v0.39", line: "v0.39", version: "v0.39.4"},
		{tree: "not-cometbft", err: "declares module example.com/notcometbft, not CometBFT's", is: ErrNotTree},
		{tree: "missing", err: "is not a directory", is: ErrNotTree},
		{tree: "no-semver", err: "declares neither CMTSemVer nor TMCoreSemVer", is: ErrLineUnknown},
		{tree: "v9", err: `version "9.1.0" (module github.com/cometbft/cometbft) is of no release line`, is: ErrLineUnknown},
	} {
		t.Run(c.tree, func(t *testing.T) {
			info, err := ReadTree(filepath.Join(trees, c.tree))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, c.is) {
					t.Fatalf("err = %v, want %q (%v)", err, c.err, c.is)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Line.Prefix != c.line || info.Version != c.version {
				t.Errorf("line %s version %s, want %s %s (%s)", info.Line.Prefix, info.Version, c.line, c.version, info.Why)
			}
		})
	}
}

// TestLineOfTreeRealSources reads the line of the release sources in the
// module cache, where they are: the test of lineOfTree against the code
// it reads.
func TestLineOfTreeRealSources(t *testing.T) {
	for _, v := range []string{"v0.38.26", "v0.40.0"} {
		dir := filepath.Join(os.Getenv("HOME"), "go", "pkg", "mod", "github.com", "cometbft", "cometbft@"+v)
		if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
			dir = filepath.Join(strings.TrimSpace(string(out)), "github.com", "cometbft", "cometbft@"+v)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: not in the module cache", v)
			continue
		}
		info, err := ReadTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		if info.Version != v {
			t.Errorf("%s: read as %s (%s)", v, info.Version, info.Why)
		}
	}
}

// copyTree copies a fake tree into a temporary directory.
func copyTree(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(trees, name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestReadSourceKeys checks that the cache key follows the code: the same
// for the same code, new for every change (committed, uncommitted,
// untracked, a patch), and that a git tree's record says so.
func TestReadSourceKeys(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	dir := copyTree(t, "v0.40")
	plain, err := ReadSource(ctx, Source{Tree: dir})
	if err != nil {
		t.Fatal(err)
	}
	if plain.TreeHash == "" || plain.Commit != "" || plain.Line != "v0.40" {
		t.Fatalf("plain directory: %+v", plain)
	}
	keys := map[string]string{"plain": plain.Key}
	step := func(name string, change func()) SourceRecord {
		t.Helper()
		change()
		r, err := ReadSource(ctx, Source{Tree: dir})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range keys {
			if v == r.Key {
				t.Errorf("%s: same key as %s", name, k)
			}
		}
		keys[name] = r.Key
		return r
	}
	write := func(f, s string) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	step("plain, edited", func() { write("cmd/cometbft/extra.go", "package main\n") })
	clean := step("committed", func() {
		git(t, dir, "init", "-q", "-b", "main")
		git(t, dir, "add", ".")
		git(t, dir, "commit", "-qm", "one")
	})
	if clean.Commit == "" || clean.Dirty || clean.Branch != "main" || clean.DiffHash != "" || len(clean.files) == 0 {
		t.Fatalf("clean git tree: %+v", clean)
	}
	again, _ := ReadSource(ctx, Source{Tree: dir})
	if again.Key != clean.Key {
		t.Error("the same commit keyed twice differently")
	}
	dirty := step("uncommitted", func() { write("version/version.go", "package version\n\nconst TMCoreSemVer = \"0.39.0\" // changed\n") })
	if !dirty.Dirty || dirty.DiffHash == "" || !strings.HasSuffix(dirty.Describe, "-dirty") {
		t.Fatalf("dirty git tree: %+v", dirty)
	}
	step("untracked", func() { write("new.txt", "x") })
	p := filepath.Join(t.TempDir(), "fix.diff")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	withPatch, err := ReadSource(ctx, Source{Tree: dir, Patches: []string{p}})
	if err != nil || len(withPatch.Patches) != 1 || withPatch.Key == keys["untracked"] {
		t.Fatalf("patched: %+v, %v", withPatch, err)
	}
	if _, err := ReadSource(ctx, Source{Tree: dir, Patches: []string{p + ".missing"}}); err == nil {
		t.Error("a missing patch file read")
	}
}

// TestApplyPatch applies a patch to a copy of a tree, and refuses one
// whose hunk does not apply with git apply's words, naming the file and
// the hunk's line.
func TestApplyPatch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	good := `--- a/version/version.go
+++ b/version/version.go
@@ -4,3 +4,3 @@ const (
 	// TMCoreSemVer is the fallback version.
-	TMCoreSemVer = "0.39.0"
+	TMCoreSemVer = "0.39.0-patched"
 )
`
	bad := strings.ReplaceAll(good, `-	TMCoreSemVer = "0.39.0"`, `-	TMCoreSemVer = "0.38.0"`)
	dir := copyTree(t, "v0.40")
	write := func(name, s string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := applyPatch(ctx, dir, write("good.diff", good)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "version", "version.go"))
	if !strings.Contains(string(b), "0.39.0-patched") {
		t.Fatalf("not applied:\n%s", b)
	}
	dir = copyTree(t, "v0.40")
	badPath := write("bad.diff", bad)
	err := applyPatch(ctx, dir, badPath)
	if !errors.Is(err, ErrPatch) {
		t.Fatalf("err = %v, want ErrPatch", err)
	}
	for _, want := range []string{badPath, "patch failed: version/version.go:4", "version/version.go: patch does not apply"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q:\n%v", want, err)
		}
	}
}

// TestSourceProgramCache builds a fake tree's cmd/cometbft (a program that
// prints its version file's version), reuses the build for the same code,
// builds again after a change, and refuses a tree that does not compile
// with the compiler's own error.
func TestSourceProgramCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	ctx := context.Background()
	f := &Fetcher{CacheDir: t.TempDir()}
	dir := copyTree(t, "v0.40")
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-qm", "one")
	run := func() (string, SourceRecord) {
		t.Helper()
		bin, rec, err := f.SourceProgram(ctx, Source{Tree: dir}, NodeProgram)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out)), rec
	}
	out, rec := run()
	if out != "0.39.0" {
		t.Fatalf("built program prints %q", out)
	}
	br, err := ReadBuildRecord(filepath.Join(f.CacheDir, sourceCacheDir, rec.Key[:16]))
	if err != nil || br == nil || br.Source == nil || br.Source.Commit != rec.Commit || br.Version != "v0.40.0" {
		t.Fatalf("build record %+v, %v", br, err)
	}
	st, _ := os.Stat(filepath.Join(f.CacheDir, sourceCacheDir, rec.Key[:16], "cometbft"))
	if _, rec2 := run(); rec2.Key != rec.Key {
		t.Fatal("the same code keyed anew")
	}
	if st2, _ := os.Stat(filepath.Join(f.CacheDir, sourceCacheDir, rec.Key[:16], "cometbft")); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("the same code built again")
	}
	if err := os.WriteFile(filepath.Join(dir, "version", "version.go"), []byte("package version\n\nconst TMCoreSemVer = \"0.39.0-dev\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, rec3 := run()
	if out != "0.39.0-dev" || !rec3.Dirty || rec3.Key == rec.Key {
		t.Fatalf("after a change: prints %q, %+v", out, rec3)
	}
	if err := os.WriteFile(filepath.Join(dir, "cmd", "cometbft", "broken.go"), []byte("package main\n\nvar x int = \"not an int\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.SourceProgram(ctx, Source{Tree: dir}, NodeProgram)
	if err == nil || !strings.Contains(err.Error(), "broken.go:3") || !strings.Contains(err.Error(), "cannot use") {
		t.Fatalf("a broken tree: %v", err)
	}
}

// FuzzLineOfTree feeds lineOfTree any version and params text: it never
// panics, and a line it tells declares the module and has the version's
// major and minor as its prefix or its reported version's.
func FuzzLineOfTree(f *testing.F) {
	f.Add(Module, "0.39.0", "ABCIPubKeyTypeMlDsa65 ABCIPubKeyTypeSecp256k1Eth ABCIPubKeyTypeEd25519 ABCIPubKeyTypeSecp256k1 ABCIPubKeyTypeBls12381")
	f.Add(Module, "0.39.4", "")
	f.Add(Module+"/v2", "2.0.0-dev", "")
	f.Add("github.com/tendermint/tendermint", "0.34.33", "")
	f.Fuzz(func(t *testing.T, module, semver, params string) {
		l, _, err := lineOfTree(module, semver, params)
		if err != nil {
			return
		}
		if l.ModulePath != module || (l.Prefix != majorMinor(semver) && majorMinor(l.Reports) != majorMinor(semver)) {
			t.Fatalf("%s %s: line %s", module, semver, l.Prefix)
		}
	})
}
