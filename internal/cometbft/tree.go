package cometbft

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ErrNotTree is matched (errors.Is) by the error for a directory that is
// not a CometBFT source tree.
var ErrNotTree = errors.New("not a CometBFT source tree")

// ErrLineUnknown is matched (errors.Is) by the error for a CometBFT tree
// whose release line cometlab cannot tell.
var ErrLineUnknown = errors.New("release line unknown")

// TreeInfo is what cometlab reads from a CometBFT source tree without
// building it: its module, the version its version file declares and the
// release line that follows.
type TreeInfo struct {
	Dir string
	// Module is the module path go.mod declares.
	Module string
	// SemVer is version/version.go's CMTSemVer (v1.0 on) or TMCoreSemVer
	// (older lines), e.g. "0.39.0": what `cometbft version` prints.
	SemVer string
	// Line is the release line of the tree; Version the release it
	// derives from: "v"+SemVer when that is a release of Line, else
	// Line's proven release (a v0.40 tree declares 0.39.0).
	Line    Line
	Version string
	// Why says how the line was told.
	Why string
}

var (
	goModModuleRE = regexp.MustCompile(`(?m)^module\s+"?([^\s"]+)"?`)
	semVerRE      = regexp.MustCompile(`(?m)^\s*(?:const\s+)?(?:CMTSemVer|TMCoreSemVer)\s*(?:string\s*)?=\s*"([^"]*)"`)
)

// ReadTree reads the CometBFT source tree at dir: go.mod must declare a
// module of a CometBFT line (github.com/cometbft/cometbft, its /v2, or
// github.com/tendermint/tendermint for v0.34) and cmd/cometbft must exist;
// the line comes from version/version.go's semantic version, told apart,
// when two lines declare it (v0.40.0 declares v0.39's 0.39.0), by the key
// types types/params.go names. Errors match [ErrNotTree] or
// [ErrLineUnknown].
func ReadTree(dir string) (TreeInfo, error) {
	info := TreeInfo{Dir: dir}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return info, fmt.Errorf("%w: %s is not a directory", ErrNotTree, dir)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return info, fmt.Errorf("%w: %s has no go.mod", ErrNotTree, dir)
	}
	m := goModModuleRE.FindSubmatch(mod)
	if m == nil {
		return info, fmt.Errorf("%w: %s/go.mod declares no module", ErrNotTree, dir)
	}
	info.Module = string(m[1])
	if !slices.Contains(modules(), info.Module) {
		return info, fmt.Errorf("%w: %s/go.mod declares module %s, not CometBFT's (%s)", ErrNotTree, dir, info.Module, strings.Join(modules(), ", "))
	}
	if st, err := os.Stat(filepath.Join(dir, "cmd", "cometbft")); err != nil || !st.IsDir() {
		return info, fmt.Errorf("%w: %s has no cmd/cometbft", ErrNotTree, dir)
	}
	vf, err := os.ReadFile(filepath.Join(dir, "version", "version.go"))
	if err != nil {
		return info, fmt.Errorf("%w: %s has no version/version.go to read the version from", ErrLineUnknown, dir)
	}
	sv := semVerRE.FindSubmatch(vf)
	if sv == nil {
		return info, fmt.Errorf("%w: %s/version/version.go declares neither CMTSemVer nor TMCoreSemVer", ErrLineUnknown, dir)
	}
	info.SemVer = string(sv[1])
	params, _ := os.ReadFile(filepath.Join(dir, "types", "params.go"))
	l, why, err := lineOfTree(info.Module, info.SemVer, string(params))
	if err != nil {
		return info, fmt.Errorf("%w: %s: %w", ErrLineUnknown, dir, err)
	}
	info.Line, info.Why = l, why
	info.Version = l.Proven
	if own, err := LineOf("v" + info.SemVer); err == nil && own.Prefix == l.Prefix {
		info.Version = "v" + info.SemVer
	}
	return info, nil
}

// lineOfTree tells a tree's line from its module path, the semantic
// version of its version file and the text of its types/params.go: the
// lines of that module whose prefix or reported version has the same
// major and minor; of several, those whose every key type params.go names
// (ABCIPubKeyType…), the one with most key types.
func lineOfTree(module, semver, params string) (Line, string, error) {
	mm := majorMinor(semver)
	var cands []Line
	for _, l := range Lines() {
		if l.ModulePath == module && (l.Prefix == mm || majorMinor(l.Reports) == mm) {
			cands = append(cands, l)
		}
	}
	switch len(cands) {
	case 0:
		return Line{}, "", fmt.Errorf("version %q (module %s) is of no release line cometlab knows", semver, module)
	case 1:
		return cands[0], fmt.Sprintf("version/version.go declares %s", semver), nil
	}
	lower := strings.ToLower(params)
	best, bestN := -1, 0
	var names []string
	for i, l := range cands {
		names = append(names, l.Prefix)
		n := 0
		for _, k := range l.KeyTypes {
			if !strings.Contains(lower, "abcipubkeytype"+strings.ReplaceAll(k.Name, "_", "")) {
				n = -1
				break
			}
			n++
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return Line{}, "", fmt.Errorf("version %q is declared by lines %s, and types/params.go's key types match none", semver, strings.Join(names, " and "))
	}
	return cands[best], fmt.Sprintf("version/version.go declares %s (lines %s), and types/params.go names %s's key types", semver, strings.Join(names, ", "), cands[best].Prefix), nil
}

// majorMinor returns "v0.39" of "0.39.0" or "v0.39.4"; "" when malformed.
func majorMinor(v string) string {
	p, ok := parseVersion("v" + strings.TrimPrefix(v, "v"))
	if !ok {
		return ""
	}
	return fmt.Sprintf("v%d.%d", p.nums[0], p.nums[1])
}
