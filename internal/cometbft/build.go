package cometbft

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
)

// Method is how a release is built.
type Method string

const (
	// MethodInstall is `go install github.com/cometbft/cometbft/cmd/cometbft@VERSION`.
	MethodInstall Method = "go install"
	// MethodMainModule is the release's module source, copied out of the
	// module cache and built with `go build ./cmd/cometbft` as the main
	// module, so that its own go.sum and replace directives hold. It is
	// used where go install refuses the release: its go.mod declares
	// another module path (v0.34.x declares github.com/tendermint/tendermint)
	// or has replace or exclude directives.
	MethodMainModule Method = "main module"
)

// Plan is how a release can be built here, decided from its go.mod and
// the module proxy's answers before anything is compiled.
type Plan struct {
	Version string
	// Declares is the module path the release's go.mod declares.
	Declares string
	Method   Method
	// NoInstall says why go install cannot build the release (empty when
	// Method is MethodInstall).
	NoInstall []string
	// Refused are modules the build needs that the module proxy refuses:
	// the release itself, or the targets of its replace directives. A plan
	// with any cannot be built.
	Refused []Refusal
}

// Refusal is a module the module proxy refuses to serve.
type Refusal struct {
	Module   string // path@version
	Replaces string // the module a replace directive points at this one, "path version"; "" if none
	Answer   string // the proxy's answer, e.g. "403 Forbidden: This module version is not available."
}

func (r Refusal) String() string {
	s := r.Module
	if r.Replaces != "" {
		s += " (replacing " + r.Replaces + ")"
	}
	return s + ": " + r.Answer
}

// Buildable reports whether nothing the build needs is refused.
func (p Plan) Buildable() bool { return len(p.Refused) == 0 }

// Why says why the release cannot be built, as indented lines (""
// when it can).
func (p Plan) Why() string {
	if p.Buildable() {
		return ""
	}
	if p.Declares == "" { // the release itself is refused
		return fmt.Sprintf("  - the Go module proxy does not serve %s: %s", p.Refused[0].Module, p.Refused[0].Answer)
	}
	var b strings.Builder
	if len(p.NoInstall) > 0 {
		b.WriteString("  - go install cannot build it: " + strings.Join(p.NoInstall, "; ") + "\n")
	}
	if p.Method == MethodInstall {
		b.WriteString("  - go install needs modules the Go module proxy refuses:")
	} else {
		b.WriteString("  - built as the main module, it needs modules the Go module proxy refuses:")
	}
	for _, r := range p.Refused {
		b.WriteString("\n      " + r.String())
	}
	return b.String()
}

// ErrNotBuildable is matched (errors.Is) by the error for a release that
// cannot be built here: nothing was run, and another release of the same
// line may be asked for instead.
var ErrNotBuildable = errors.New("cometbft release cannot be built here")

// BuildError is why a release cannot be built, with the nearest release of
// its line that can.
type BuildError struct {
	Plan    Plan
	Line    string // "v0.34"
	Nearest string // "" when no release of the line builds
}

func (e *BuildError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cometbft %s cannot be built here:\n%s", e.Plan.Version, e.Plan.Why())
	if e.Nearest != "" {
		fmt.Fprintf(&b, "\n  the nearest release of the %s line that builds is %s (--cometbft-version %s)", e.Line, e.Nearest, e.Nearest)
	} else {
		fmt.Fprintf(&b, "\n  no release of the %s line builds here", e.Line)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrNotBuildable) true.
func (e *BuildError) Is(target error) bool { return target == ErrNotBuildable }

// ExitCode is exitcode.Usage: a release that cannot be built is bad input,
// and nothing was run.
func (e *BuildError) ExitCode() int { return exitcode.Usage }

// planFor decides the build method from a release's go.mod and returns
// the replace directives' module targets, which a main-module build must
// fetch.
func planFor(version string, mod goMod) (Plan, []Refusal) {
	p := Plan{Version: version, Declares: mod.Module.Path, Method: MethodInstall}
	if want := ModuleOf(version); p.Declares != want {
		p.NoInstall = append(p.NoInstall, fmt.Sprintf("its go.mod declares module %s (a path conflict with %s)", p.Declares, want))
	}
	if n := len(mod.Replace); n > 0 {
		p.NoInstall = append(p.NoInstall, fmt.Sprintf("its go.mod has %s", plural(n, "replace directive")))
	}
	if n := len(mod.Exclude); n > 0 {
		p.NoInstall = append(p.NoInstall, fmt.Sprintf("its go.mod has %s", plural(n, "exclude directive")))
	}
	var targets []Refusal
	for _, r := range mod.Replace {
		if r.New.Version == "" { // a directory inside the module: copied with it
			continue
		}
		old := r.Old.Path
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		targets = append(targets, Refusal{Module: r.New.Path + "@" + r.New.Version, Replaces: old})
	}
	if len(p.NoInstall) > 0 {
		p.Method = MethodMainModule
	}
	return p, targets
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// plan decides how version can be built here: it reads the release's
// go.mod from the module proxy and, for a main-module build, asks the
// proxy for every replace directive's target. A refusal is part of the
// plan; an error means the question could not be answered (the proxy not
// reached, lookups disabled).
func plan(ctx context.Context, g goTool, version string) (Plan, error) {
	info, err := g.listModule(ctx, ModuleOf(version), version)
	if err != nil {
		var fe *fetchError
		if errors.As(err, &fe) && fe.Answer != "" {
			return Plan{Version: version, Refused: []Refusal{{Module: fe.Module, Answer: fe.Answer}}}, nil
		}
		return Plan{}, fmt.Errorf("cometbft %s: %w", version, err)
	}
	mod, err := g.readGoMod(ctx, info.GoMod)
	if err != nil {
		return Plan{}, fmt.Errorf("cometbft %s: %w", version, err)
	}
	p, targets := planFor(version, mod)
	if p.Method != MethodMainModule {
		return p, nil
	}
	for _, t := range targets {
		path, v, _ := strings.Cut(t.Module, "@")
		_, err := g.download(ctx, path, v)
		var fe *fetchError
		switch {
		case err == nil:
		case errors.As(err, &fe) && fe.Answer != "":
			t.Answer = fe.Answer
			p.Refused = append(p.Refused, t)
		default:
			return Plan{}, fmt.Errorf("cometbft %s: replace target of %s: %w", version, t.Replaces, err)
		}
	}
	return p, nil
}

// BuildRecord is what the cache keeps about a binary it built, in
// build.json beside it.
type BuildRecord struct {
	Version   string    `json:"version"`
	Method    Method    `json:"method"`
	Declares  string    `json:"declares"`   // the module path of the release's go.mod
	GoVersion string    `json:"go_version"` // the go command that built it
	Seconds   float64   `json:"seconds"`    // wall time of the build (and its downloads)
	Built     time.Time `json:"built"`
	// Source is the tree or patched release built ([Fetcher.SourceProgram]);
	// nil for a release.
	Source *SourceRecord `json:"source,omitempty"`
}

// buildRecordFile is the record's name in a version's cache directory.
const buildRecordFile = "build.json"

// ReadBuildRecord reads the build.json of a version's cache directory (the
// directory of the binary [Fetcher.Binary] returns); a binary cached by an
// older cometlab has none (nil, nil).
func ReadBuildRecord(dir string) (*BuildRecord, error) { return ReadProgramRecord(dir, NodeProgram) }

// ReadProgramRecord reads the build record of program prog in its cache
// directory dir (nil, nil when it has none).
func ReadProgramRecord(dir string, prog Program) (*BuildRecord, error) {
	path := filepath.Join(dir, prog.recordFile())
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r BuildRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// build compiles the plan's release into dir/cometbft (through a temporary
// directory, so that a failed or interrupted build leaves nothing) and
// writes dir/build.json.
func (f *Fetcher) build(ctx context.Context, g goTool, p Plan, prog Program, dir string) error {
	tmp, err := os.MkdirTemp(dir, ".build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	label := "building " + prog.Name + " " + p.Version
	bin := filepath.Join(tmp, prog.Name)
	start := time.Now()
	cgo := "CGO_ENABLED=0"
	if prog.CGO {
		cgo = "CGO_ENABLED=1"
	}
	if prog.Own {
		p.Method = MethodMainModule
	}
	var out []byte
	switch p.Method {
	case MethodInstall:
		pkg := ModuleOf(p.Version) + "/" + prog.Pkg + "@" + p.Version
		f.say("building %s %s (go install %s); the first build takes a couple of minutes", prog.Name, p.Version, pkg)
		_, out, err = g.run(ctx, "", label, []string{"GOBIN=" + tmp, cgo}, slices.Concat([]string{"install"}, prog.tagArgs(), []string{pkg})...)
		bin = filepath.Join(tmp, path.Base(prog.Pkg)) // go install names it after the package's directory
	case MethodMainModule:
		if prog.Own {
			f.say("building %s %s in the release's module source; the first build takes a minute or two", prog.Name, p.Version)
		} else {
			f.say("building %s %s as the main module (go install cannot: %s); the first build takes a minute or two",
				prog.Name, p.Version, strings.Join(p.NoInstall, "; "))
		}
		var src string
		if src, err = copySource(ctx, g, p.Version, tmp); err != nil {
			return err
		}
		if prog.Own {
			if err := writeOwnSource(prog, p.Version, src); err != nil {
				return err
			}
		}
		out, err = goBuild(ctx, g, prog, src, bin)
	default:
		return fmt.Errorf("cometbft %s: unknown build method %q", p.Version, p.Method)
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build %s %s: %w", prog.Name, p.Version, ctx.Err())
		}
		if rs := parseRefusals(string(out)); len(rs) > 0 {
			for _, r := range rs {
				p.Refused = append(p.Refused, Refusal{Module: r.Module, Answer: r.Answer})
			}
			return f.notBuildable(ctx, g, p)
		}
		return fmt.Errorf("build %s %s (%s) failed: %v; output:\n%s", prog.Name, p.Version, p.Method, err, tail(string(out), 20))
	}
	rec := BuildRecord{Version: p.Version, Method: p.Method, Declares: p.Declares, GoVersion: g.env(ctx, "GOVERSION"),
		Seconds: time.Since(start).Round(100 * time.Millisecond).Seconds(), Built: time.Now().UTC()}
	f.say("built %s %s in %s (%s)", prog.Name, p.Version, time.Since(start).Round(time.Second), p.Method)
	return install(rec, prog, bin, dir)
}

// install writes the build record of prog into dir and moves the built
// binary bin there, last, so that a binary in the cache has its record.
func install(rec BuildRecord, prog Program, bin, dir string) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, prog.recordFile()), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(bin, filepath.Join(dir, prog.Name))
}

// checkCGO returns why a cgo build of prog cannot run here (nil when it
// can): the C compiler the go command uses (go env CC) must be in PATH.
func checkCGO(ctx context.Context, g goTool, prog Program) error {
	if !prog.CGO {
		return nil
	}
	cc := g.env(ctx, "CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(strings.Fields(cc)[0]); err != nil {
		return fmt.Errorf("%s is built with cgo (build tags %s), which needs a C compiler: %q is not in PATH "+
			"(Debian: apt-get install gcc libc6-dev; .ci/run installs them)", prog.Name, prog.Tags, cc)
	}
	return nil
}

// tagArgs is the program's -tags flag, none without tags.
func (p Program) tagArgs() []string {
	if p.Tags == "" {
		return nil
	}
	return []string{"-tags", p.Tags}
}

// copySource downloads the release's module source and copies it out of
// the (read-only) module cache into tmp/src.
func copySource(ctx context.Context, g goTool, version, tmp string) (string, error) {
	info, err := g.download(ctx, ModuleOf(version), version)
	if err != nil {
		return "", fmt.Errorf("cometbft %s: download the source: %w", version, err)
	}
	src := filepath.Join(tmp, "src")
	if err := os.CopyFS(src, os.DirFS(info.Dir)); err != nil {
		return "", fmt.Errorf("cometbft %s: copy the source out of the module cache: %w", version, err)
	}
	return src, nil
}

// notBuildable is the BuildError for a plan that cannot be built, naming
// the nearest release of the same line that can.
func (f *Fetcher) notBuildable(ctx context.Context, g goTool, p Plan) error {
	l, _ := LineOf(p.Version)
	near, err := nearest(ctx, g, p.Version, f.known(ctx, g))
	if err != nil {
		f.say("cometbft %s: looking for a release of %s that builds: %v", p.Version, l.Prefix, err)
	}
	return &BuildError{Plan: p, Line: l.Prefix, Nearest: near}
}

// nearest returns the release of version's line, among known, nearest to
// version (newer first on a tie) whose plan is buildable; pre-releases are
// not offered.
func nearest(ctx context.Context, g goTool, version string, known []string) (string, error) {
	for _, v := range byDistance(version, known) {
		p, err := plan(ctx, g, v)
		if err != nil {
			return "", err
		}
		if p.Buildable() {
			return v, nil
		}
	}
	return "", nil
}

// byDistance returns the releases (no pre-releases) of version's line
// among known, other than version, nearest first (by patch number; newer
// first on a tie).
func byDistance(version string, known []string) []string {
	l, err := LineOf(version)
	pv, ok := parseVersion(version)
	if err != nil || !ok {
		return nil
	}
	var out []string
	for _, v := range known {
		kl, err := LineOf(v)
		pk, ok := parseVersion(v)
		if err != nil || !ok || kl.Prefix != l.Prefix || pk.pre != "" || v == version {
			continue
		}
		out = append(out, v)
	}
	dist := func(v string) int {
		p, _ := parseVersion(v)
		return abs(p.nums[2] - pv.nums[2])
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(dist(a), dist(b)); c != 0 {
			return c
		}
		return compareVersions(b, a) // newer first
	})
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
