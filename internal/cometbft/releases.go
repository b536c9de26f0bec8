package cometbft

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sync/errgroup"
)

// Release is a release cometlab knows of and its status here.
type Release struct {
	Version string
	Line    Line
	// Binary is the cached binary ("" when not built); Record its
	// build.json (nil for a binary cached before records were kept).
	Binary string
	Record *BuildRecord
	// Plan is how it would be built (nil for a built release).
	Plan *Plan
	// Err is why its plan could not be made (the proxy not reached…).
	Err error
}

// Release statuses.
const (
	StatusBuilt        = "built"
	StatusBuildable    = "buildable"
	StatusNotBuildable = "not buildable"
	StatusUnknown      = "unknown"
)

// Status is built, buildable, not buildable or unknown (the plan could
// not be made).
func (r Release) Status() string {
	switch {
	case r.Binary != "":
		return StatusBuilt
	case r.Plan == nil:
		return StatusUnknown
	case r.Plan.Buildable():
		return StatusBuildable
	}
	return StatusNotBuildable
}

// Proven reports whether the release is its line's proven release, the
// one the version-matrix test runs.
func (r Release) Proven() bool { return r.Line.Proven == r.Version }

// ReleasesOptions select the releases listed.
type ReleasesOptions struct {
	// Pre lists pre-releases (alpha, rc) too; cached ones always are.
	Pre bool
}

// Releases lists the cached and known releases, newest first, with their
// status: a cached binary is built; for every other release the plan says
// whether it is buildable (and how) or why not. The error is set when the
// module proxy's list could not be read; the releases known without it
// are still returned.
func (f *Fetcher) Releases(ctx context.Context, opts ReleasesOptions) ([]Release, error) {
	g, err := f.goTool()
	if err != nil {
		return nil, err
	}
	listed, listErr := f.listed(ctx, g)
	cached := f.cached()
	var vs []string
	for _, v := range uniqueVersions(append(append(listed, provenReleases()...), cached...)) {
		p, _ := parseVersion(v)
		if _, err := LineOf(v); err == nil && (opts.Pre || p.pre == "" || slices.Contains(cached, v)) {
			vs = append(vs, v)
		}
	}
	slices.Reverse(vs)
	rs := make([]Release, len(vs))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(4)
	for i, v := range vs {
		l, _ := LineOf(v)
		rs[i] = Release{Version: v, Line: l}
		dir := filepath.Join(f.CacheDir, v)
		if slices.Contains(cached, v) {
			rs[i].Binary = filepath.Join(dir, "cometbft")
			rs[i].Record, rs[i].Err = ReadBuildRecord(dir)
			continue
		}
		eg.Go(func() error {
			p, err := plan(ectx, g, v)
			if err != nil {
				rs[i].Err = err
				return nil
			}
			rs[i].Plan = &p
			return nil
		})
	}
	_ = eg.Wait()
	return rs, listErr
}

// known returns the releases cometlab knows of: those the module proxy
// lists, each line's proven release (the proxy's list leaves out v0.34
// tags, whose go.mod declares another module path) and every cached one.
func (f *Fetcher) known(ctx context.Context, g goTool) []string {
	listed, _ := f.listed(ctx, g)
	return uniqueVersions(append(append(listed, provenReleases()...), f.cached()...))
}

// listed returns the releases the module proxy lists under every module
// path of the lines (github.com/cometbft/cometbft and …/v2); the error
// is the first list that could not be read.
func (f *Fetcher) listed(ctx context.Context, g goTool) ([]string, error) {
	var all []string
	var first error
	for _, m := range modules() {
		vs, err := g.listVersions(ctx, m)
		if err != nil && first == nil {
			first = err
		}
		all = append(all, vs...)
	}
	return all, first
}

// cached lists the versions with a binary in the cache.
func (f *Fetcher) cached() []string {
	ents, _ := os.ReadDir(f.CacheDir)
	var vs []string
	for _, e := range ents {
		if _, err := LineOf(e.Name()); err != nil {
			continue
		}
		if ok, _ := executable(filepath.Join(f.CacheDir, e.Name(), "cometbft")); ok {
			vs = append(vs, e.Name())
		}
	}
	return vs
}

// uniqueVersions sorts versions oldest first and drops repeats.
func uniqueVersions(vs []string) []string {
	vs = slices.Clone(vs)
	slices.SortFunc(vs, compareVersions)
	return slices.Compact(vs)
}

// Nearest returns the release of version's line among rs, nearest to
// version (newer first on a tie), that is built or buildable; "" if none.
func Nearest(rs []Release, version string) string {
	var ok []string
	for _, r := range rs {
		if s := r.Status(); s == StatusBuilt || s == StatusBuildable {
			ok = append(ok, r.Version)
		}
	}
	if vs := byDistance(version, ok); len(vs) > 0 {
		return vs[0]
	}
	return ""
}
