package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
)

// printSource prints what cometlab reads from the CometBFT tree at path,
// without building it: the module, the version file's version and the
// line told from it, the git state (or the files' hash), the build cache's
// key and whether it is built, and the capabilities of the release it runs
// as. A path that is not a tree, or whose line cannot be told, is a usage
// error naming the reason.
func printSource(ctx context.Context, w io.Writer, f *cometbft.Fetcher, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return exitcode.With(fmt.Errorf("--source: %w", err), exitcode.Usage)
	}
	info, err := cometbft.ReadTree(abs)
	if err != nil {
		return exitcode.With(fmt.Errorf("--source: %w", err), exitcode.Usage)
	}
	rec, err := cometbft.ReadSource(ctx, cometbft.Source{Tree: abs})
	if err != nil {
		return exitcode.With(fmt.Errorf("--source: %w", err), exitcode.Usage)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	row("source", "%s", abs)
	row("module", "%s", info.Module)
	row("version", "%s (version/version.go)", info.SemVer)
	row("line", "%s: %s", info.Line.Prefix, info.Why)
	row("runs as", "%s (the release the line's capabilities are judged on)", info.Version)
	switch {
	case rec.Commit != "":
		row("commit", "%s", rec.Commit)
		row("branch", "%s", orNone(rec.Branch, "(detached)"))
		row("describe", "%s", rec.Describe)
		if rec.Dirty {
			row("dirty", "yes: diff sha256 %s (git diff HEAD and untracked files)", rec.DiffHash)
		} else {
			row("dirty", "no")
		}
	default:
		row("tree sha256", "%s (a plain directory: its files)", rec.TreeHash)
	}
	row("cache key", "%s", rec.Key)
	if bin := f.SourceBuilt(rec, cometbft.NodeProgram); bin != "" {
		row("built", "%s", bin)
	} else {
		row("built", "no: the first run builds it")
	}
	for _, c := range capabilities(info) {
		row(c[0], "%s", c[1])
	}
	return tw.Flush()
}

// capabilities are the line-gated capabilities of a tree, from the facts
// of the release it runs as.
func capabilities(info cometbft.TreeInfo) [][2]string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	var keys []string
	for _, k := range cometbft.KeyTypesOf(info.Version) {
		s := k.Name
		if k.Tag != "" {
			s += " (tag " + k.Tag + ")"
		}
		if k.Halts != "" {
			s += " (halts: refused)"
		}
		keys = append(keys, s)
	}
	l := info.Line
	return [][2]string{
		{"key types", strings.Join(keys, ", ")},
		{"mempools", strings.Join(cometbft.MempoolsOf(info.Version), ", ")},
		{"libp2p", yes(l.LibP2P)},
		{"adaptive sync", yes(l.AdaptiveSync)},
		{"clock skew", yes(l.ClockSkew)},
		{"pbts", yes(cometbft.GenesisHas(info.Version, cometbft.GenesisPBTSKey))},
		{"dog", yes(cometbft.ConfigHas(info.Version, cometbft.ConfigDOGEnabled))},
		{"e2e app", e2eApp(info)},
	}
}

// e2eApp says whether the tree has CometBFT's e2e app node, and how many
// app.toml keys its line's has.
func e2eApp(info cometbft.TreeInfo) string {
	if st, err := os.Stat(filepath.Join(info.Dir, filepath.FromSlash(cometbft.E2ENodeProgram.Pkg))); err != nil || !st.IsDir() {
		return "no: the tree has no " + cometbft.E2ENodeProgram.Pkg
	}
	return fmt.Sprintf("yes: %s (%d app.toml keys)", cometbft.E2ENodeProgram.Pkg, len(info.Line.E2EAppKeys))
}
