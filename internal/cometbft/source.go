package cometbft

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Source is code a node runs that the module proxy does not serve as a
// release: a CometBFT source tree on disk (Tree), or a release's module
// source (Release) — either with patches applied before the build.
type Source struct {
	// Tree is the absolute path of a CometBFT checkout (a git work tree or
	// a plain directory); "" for a release.
	Tree string
	// Release is the release whose module source is patched, when Tree is
	// "".
	Release string
	// Patches are the absolute paths of patch files, applied in order
	// with git apply.
	Patches []string
}

// String names the source: "tree /home/me/cometbft", "v0.40.0 + fix.diff".
func (s Source) String() string {
	what := s.Release
	if s.Tree != "" {
		what = "tree " + s.Tree
	}
	for _, p := range s.Patches {
		what += " + " + filepath.Base(p)
	}
	return what
}

// Patch is a patch file applied to a source, with the SHA-256 of its
// bytes.
type Patch struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// SourceRecord is the provenance of a source build: what code it is, read
// before the build and kept in the build's build.json.
type SourceRecord struct {
	// Path is the tree's directory ("" for a patched release); Release
	// the release patched ("" for a tree).
	Path    string `json:"path,omitempty"`
	Release string `json:"release,omitempty"`
	// Module, SemVer, Line and Version are the tree's (see [TreeInfo]).
	Module  string `json:"module"`
	SemVer  string `json:"semver,omitempty"`
	Line    string `json:"line"`
	Version string `json:"version"`
	// Commit, Branch and Describe are the git work tree's HEAD, its branch
	// ("" when detached) and `git describe --always --dirty`; Dirty says
	// the work tree differs from HEAD (untracked files too) and DiffHash is
	// the SHA-256 of that difference (git diff HEAD --binary, then each
	// untracked file's name and bytes). A plain directory has none of them
	// but TreeHash, the SHA-256 of its files' names, modes and bytes.
	Commit   string `json:"commit,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Describe string `json:"describe,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	DiffHash string `json:"diff_sha256,omitempty"`
	TreeHash string `json:"tree_sha256,omitempty"`
	// CommitTime is HEAD's committer time (git log's %cI): the order of a
	// branch's commits in a history trend (--by commit). Not in the key:
	// the commit names it.
	CommitTime time.Time `json:"commit_time,omitzero"`
	// Patches are the patches applied, in order.
	Patches []Patch `json:"patches,omitempty"`
	// Key is the build cache's key: the SHA-256 of everything above that
	// names the code.
	Key string `json:"key"`
	// files are the tree's files to build from (relative, slash-separated).
	files []string
}

// Label is how a node of the source is named in run records:
// "tree /path@abc123def456+dirty (v0.40)", "v0.40.0 + fix.diff".
func (r SourceRecord) Label() string {
	if r.Path == "" {
		s := r.Release
		for _, p := range r.Patches {
			s += " + " + filepath.Base(p.Path)
		}
		return s
	}
	s := "tree " + r.Path
	switch {
	case r.Commit != "":
		s += "@" + short(r.Commit)
		if r.Dirty {
			s += "+dirty." + short(r.DiffHash)
		}
	case r.TreeHash != "":
		s += "#" + short(r.TreeHash)
	}
	for _, p := range r.Patches {
		s += " + " + filepath.Base(p.Path)
	}
	return s + " (" + r.Line + ")"
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// ReadSource reads what src is without building it: a tree's line (see
// [ReadTree]), its git state or the hash of its files, and the patches'
// hashes. A missing patch file is an error.
func ReadSource(ctx context.Context, src Source) (SourceRecord, error) {
	var r SourceRecord
	if src.Tree == "" {
		l, err := LineOf(src.Release)
		if err != nil {
			return r, err
		}
		r = SourceRecord{Release: src.Release, Module: l.ModulePath, Line: l.Prefix, Version: src.Release}
	} else {
		info, err := ReadTree(src.Tree)
		if err != nil {
			return r, err
		}
		r = SourceRecord{Path: src.Tree, Module: info.Module, SemVer: info.SemVer, Line: info.Line.Prefix, Version: info.Version}
		if err := readTreeState(ctx, &r); err != nil {
			return r, err
		}
	}
	key := sha256.New()
	fmt.Fprintf(key, "release %s\ncommit %s\ndiff %s\ntree %s\n", r.Release, r.Commit, r.DiffHash, r.TreeHash)
	for _, p := range src.Patches {
		b, err := os.ReadFile(p)
		if err != nil {
			return r, fmt.Errorf("patch: %w", err)
		}
		sum := sha256.Sum256(b)
		r.Patches = append(r.Patches, Patch{Path: p, SHA256: hex.EncodeToString(sum[:])})
		fmt.Fprintf(key, "patch %x\n", sum)
	}
	r.Key = hex.EncodeToString(key.Sum(nil))
	return r, nil
}

// readTreeState fills r's git state (or, for a plain directory or a
// repository without a commit, its TreeHash) and the files to build from.
func readTreeState(ctx context.Context, r *SourceRecord) error {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.Path}, args...)...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return string(out), nil
	}
	commit, err := git("rev-parse", "--verify", "-q", "HEAD")
	if _, lookErr := exec.LookPath("git"); err != nil || lookErr != nil {
		files, err := listFiles(r.Path)
		if err != nil {
			return err
		}
		r.files = files
		r.TreeHash, err = hashFiles(r.Path, files, nil)
		return err
	}
	r.Commit = strings.TrimSpace(commit)
	if b, err := git("rev-parse", "--abbrev-ref", "HEAD"); err == nil && strings.TrimSpace(b) != "HEAD" {
		r.Branch = strings.TrimSpace(b)
	}
	if d, err := git("describe", "--always", "--dirty"); err == nil {
		r.Describe = strings.TrimSpace(d)
	}
	if c, err := git("log", "-1", "--format=%cI", "HEAD"); err == nil {
		if at, err := time.Parse(time.RFC3339, strings.TrimSpace(c)); err == nil {
			r.CommitTime = at.UTC()
		}
	}
	ls, err := git("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return err
	}
	untracked, err := git("ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return err
	}
	diff, err := git("diff", "HEAD", "--binary", "--", ".")
	if err != nil {
		return err
	}
	for _, f := range splitNUL(ls) {
		if st, err := os.Lstat(filepath.Join(r.Path, f)); err == nil && !st.IsDir() { // a deleted file is listed still
			r.files = append(r.files, f)
		}
	}
	if diff == "" && untracked == "" {
		return nil
	}
	r.Dirty = true
	r.DiffHash, err = hashFiles(r.Path, splitNUL(untracked), []byte(diff))
	return err
}

func splitNUL(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// listFiles lists the regular files and symbolic links under dir
// (relative, slash-separated, sorted), leaving out .git directories.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(out)
	return out, err
}

// hashFiles returns the SHA-256 of prefix and then, for each file (in
// order), its name, whether it is executable (or a link's target) and
// its bytes, each length-delimited so that no two trees hash alike.
func hashFiles(dir string, files []string, prefix []byte) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", len(prefix))
	h.Write(prefix)
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		st, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "link %q %q\n", f, target)
			continue
		}
		fmt.Fprintf(h, "file %q %t %d\n", f, st.Mode()&0o111 != 0, st.Size())
		fh, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyFiles copies files (relative to dir) into dst, keeping executable
// bits and symbolic links.
func copyFiles(dir string, files []string, dst string) error {
	for _, f := range files {
		from, to := filepath.Join(dir, filepath.FromSlash(f)), filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		st, err := os.Lstat(from)
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(from)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, st.Mode().Perm()|0o200); err != nil {
			return err
		}
	}
	return nil
}
