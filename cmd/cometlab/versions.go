package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

func newVersionsCmd(st *state) *cobra.Command {
	var (
		pre   bool
		build []string
		apps  bool
		skew  bool
		keys  bool
		kts   []string
		src   string
		sdk   []string
	)
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List the CometBFT releases cometlab knows: built, buildable, or not buildable and why",
		Long: `List the CometBFT releases cometlab knows (those the Go module proxy lists,
each release line's proven release and every cached binary), newest first,
with their status on this machine:

  built          a binary is cached (` + "~/.cache/cometlab/cometbft/<version>/" + `): a run
                 starts at once; BUILD says how it was built and how long it took
  buildable      its go.mod and the module proxy say it builds: with go install,
                 or as the main module where go install cannot (the v0.34 tags
                 declare module github.com/tendermint/tendermint)
  not buildable  why, below the table (the refused module and the proxy's
                 answer), and the nearest release of its line that builds
  unknown        the question could not be answered (e.g. the proxy not reached)

"matrix" marks each line's proven release, the one the version-matrix test
runs in CI. --build builds releases now (once: they are cached), so that a
long run does not start with a build; --build default builds the default
release, --build matrix the default release and every "matrix" release (CI
does, while its first tests run). --apps builds, for each release of
--build, the apps runs of it may use too: CometBFT's e2e app node
([app] kind = "e2e", and the e2e manifests) and abci-cli, whose kvstore
is the external app of the examples. --clock-skew builds, for each
release of --build that has the clock_skew build tag (v1.0), its
cometbft with that tag: the binary a node with a clock_skew runs. --keys
builds, for each release of --build, what validators of its other key types
need (key_type): the keygen cometlab builds in the release's source, and,
for a key type behind a build tag (bls12_381: cgo and a C compiler), the
release's cometbft and keygen with the tag (with --apps its e2e app node
too); --key-type limits it to the key types named (every one a key type of
each --build release). --source PATH prints what cometlab reads from a
CometBFT source tree without building it (cometbft_source in a manifest):
its module, version file and the release line told from them, its git
commit, branch and dirty state (or a plain directory's hash), its build
cache key and the capabilities of its line; see docs/source.md. --sdk
builds cometlab's own Cosmos SDK chain (app = "sdk", docs/sdk.md) for
these SDK releases from its source (the sdkchain/ directory found above
the working directory or the binary, or COMETLAB_SDKCHAIN_SOURCE): what
a run of app = "sdk" would build first.`,
		Example: `  cometlab versions
  cometlab versions --build v0.34.33,v1.0.1
  cometlab versions --build matrix
  cometlab versions --build default --apps
  cometlab versions --build v1.0.1 --clock-skew
  cometlab versions --build v0.40.0 --keys
  cometlab versions --build v2.0.0-rc1 --keys --key-type bls12_381
  cometlab versions --source ../cometbft
  cometlab versions --sdk v0.55.0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if src != "" {
				if len(build) > 0 || apps || skew || keys || pre || len(sdk) > 0 {
					return exitcode.With(errors.New("--source prints what cometlab reads from a tree: give it alone"), exitcode.Usage)
				}
				f, err := fetcher(st.stderr)
				if err != nil {
					return err
				}
				return printSource(cmd.Context(), st.stdout, f, src)
			}
			f, err := buildReleases(cmd.Context(), st, buildFlags{build: build, apps: apps, skew: skew, keys: keys, kts: kts, sdk: sdk})
			if err != nil {
				return err
			}
			rs, err := f.Releases(cmd.Context(), cometbft.ReleasesOptions{Pre: pre})
			if err != nil {
				fmt.Fprintf(st.stderr, "cometlab: the module proxy's list of releases could not be read (%v); showing the cached and proven releases\n", err)
			}
			printReleases(st.stdout, rs, f.CacheDir)
			return nil
		},
	}
	cmd.Flags().BoolVar(&pre, "pre", false, "list pre-releases (alpha, rc) too")
	cmd.Flags().StringSliceVar(&build, "build", nil, "build these releases first (comma-separated), e.g. v0.34.33,v1.0.1; \"matrix\": the default release and every line's proven one")
	cmd.Flags().BoolVar(&apps, "apps", false, "with --build: build each release's e2e app node and abci-cli too")
	cmd.Flags().BoolVar(&skew, "clock-skew", false, "with --build: build each release's cometbft with the clock_skew tag too (v1.0), for nodes with a clock_skew")
	cmd.Flags().BoolVar(&keys, "keys", false, "with --build: build what each release's other key types need too (its keygen; cometbft, with --apps the e2e app node, built with a key type's tag)")
	cmd.Flags().StringSliceVar(&kts, "key-type", nil, "with --keys: only what these key types need (comma-separated), e.g. bls12_381")
	cmd.Flags().StringVar(&src, "source", "", "print what cometlab reads from the CometBFT source tree at this path (line, module, version, commit, dirty, capabilities), without building it")
	cmd.Flags().StringSliceVar(&sdk, "sdk", nil, "build cometlab's Cosmos SDK chain (app = \"sdk\") for these SDK releases (comma-separated), e.g. v0.55.0; \"default\": "+manifest.DefaultSDKVersion)
	return cmd
}

// buildFlags are versions' build flags: the releases to build and what
// of each (its apps, its clock_skew binary, its key types' programs).
type buildFlags struct {
	build            []string
	apps, skew, keys bool
	kts              []string
	sdk              []string // SDK releases of cometlab's chain
}

// buildReleases builds what b names (refusing a combination that names
// nothing to build, before anything is built) and returns the fetcher.
func buildReleases(ctx context.Context, st *state, b buildFlags) (*cometbft.Fetcher, error) {
	build := expandBuild(b.build)
	for _, v := range build {
		if _, err := cometbft.LineOf(v); err != nil {
			return nil, exitcode.With(fmt.Errorf("--build: %w", err), exitcode.Usage)
		}
	}
	f, err := fetcher(st.stderr)
	if err != nil {
		return nil, err
	}
	if b.apps && len(build) == 0 {
		return nil, exitcode.With(errors.New("--apps builds the apps of the --build releases: name them with --build"), exitcode.Usage)
	}
	if b.skew && len(build) == 0 {
		return nil, exitcode.With(errors.New("--clock-skew builds the clock_skew binaries of the --build releases: name them with --build"), exitcode.Usage)
	}
	if b.keys && len(build) == 0 {
		return nil, exitcode.With(errors.New("--keys builds the key type programs of the --build releases: name them with --build"), exitcode.Usage)
	}
	if len(b.kts) > 0 && !b.keys {
		return nil, exitcode.With(errors.New("--key-type limits what --keys builds: give --keys too"), exitcode.Usage)
	}
	sdks, err := sdkReleases(b.sdk)
	if err != nil {
		return nil, exitcode.With(err, exitcode.Usage)
	}
	progs := map[string][]cometbft.Program{}
	for _, v := range build {
		ps, err := keyPrograms(b.keys, b.apps, v, b.kts)
		if err != nil {
			return nil, exitcode.With(err, exitcode.Usage)
		}
		progs[v] = ps
	}
	for _, v := range build {
		if _, err := f.Binary(ctx, v); err != nil {
			return nil, err
		}
		for _, p := range buildApps(b.apps) {
			if _, err := f.Program(ctx, v, p); err != nil {
				return nil, err
			}
		}
		if line, _ := cometbft.LineOf(v); b.skew && line.ClockSkew {
			if _, err := f.Program(ctx, v, cometbft.ClockSkewProgram); err != nil {
				return nil, err
			}
		} else if b.skew {
			fmt.Fprintf(st.stderr, "cometlab: %s has no clock_skew build tag (v1.0 has): no clock_skew binary built\n", v)
		}
		for _, p := range progs[v] {
			if _, err := f.Program(ctx, v, p); err != nil {
				return nil, err
			}
		}
	}
	for _, v := range sdks {
		if _, _, err := f.OwnSDKChain(ctx, v); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// sdkReleases are --sdk's SDK releases, "default" expanded; one cometlab's
// chain is not built for is refused naming those it is.
func sdkReleases(names []string) ([]string, error) {
	var out []string
	for _, v := range names {
		if v == "default" {
			v = manifest.DefaultSDKVersion
		}
		if _, ok := manifest.SDKVersions[v]; !ok {
			known := slices.Sorted(maps.Keys(manifest.SDKVersions))
			return nil, fmt.Errorf("--sdk %s: cometlab's SDK chain is built for %s", v, strings.Join(known, ", "))
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// buildApps are the programs --apps builds beside each release's node.
func buildApps(apps bool) []cometbft.Program {
	if !apps {
		return nil
	}
	return []cometbft.Program{cometbft.E2ENodeProgram, cometbft.ABCICLIProgram}
}

// keyPrograms are the programs --keys builds for release v: the keygen,
// and for each key type with a build tag the node (and with apps the e2e
// app node) and keygen built with it. Given only (--key-type), just what
// those key types need: the keygen if one of them has no tag (ed25519
// needs none), the tagged programs of those that have one; a name that
// is not a key type of v is an error.
func keyPrograms(keys, apps bool, v string, only []string) ([]cometbft.Program, error) {
	if !keys {
		return nil, nil
	}
	ks := cometbft.KeyTypesOf(v)
	if len(only) > 0 {
		var picked []cometbft.KeyType
		for _, name := range only {
			k, ok := cometbft.KeyTypeOf(v, name)
			if !ok {
				return nil, fmt.Errorf("--key-type %s: not a key type of %s (%s)", name, v, keyTypeNames(ks))
			}
			picked = append(picked, k)
		}
		ks = picked
	}
	var out []cometbft.Program
	if len(only) == 0 || slices.ContainsFunc(ks, func(k cometbft.KeyType) bool { return k.Tag == "" && k.Name != cometbft.KeyEd25519 }) {
		out = append(out, cometbft.KeygenProgram)
	}
	for _, k := range ks {
		if k.Tag == "" {
			continue
		}
		out = append(out, cometbft.NodeProgram.ForKey(k), cometbft.KeygenProgram.ForKey(k))
		if apps {
			out = append(out, cometbft.E2ENodeProgram.ForKey(k))
		}
	}
	return out, nil
}

// keyTypeNames lists the key types' names, comma-separated.
func keyTypeNames(ks []cometbft.KeyType) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// expandBuild replaces "default" in build with the default release and
// "matrix" with the default release and every line's proven release, each
// once, in that order.
func expandBuild(build []string) []string {
	var out []string
	for _, v := range build {
		if v != "matrix" && v != "default" {
			out = append(out, v)
			continue
		}
		out = append(out, cometbft.DefaultVersion)
		if v == "default" {
			continue
		}
		for _, l := range cometbft.Lines() {
			out = append(out, l.Proven)
		}
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, v := range out {
		if !seen[v] {
			seen[v] = true
			uniq = append(uniq, v)
		}
	}
	return uniq
}

// printReleases writes the release table, then why each release that
// cannot be built cannot.
func printReleases(w io.Writer, rs []cometbft.Release, cacheDir string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tLINE\tSTATUS\tBUILD\tNOTE")
	var why []string
	for _, r := range rs {
		var notes []string
		if r.Version == cometbft.DefaultVersion {
			notes = append(notes, "default")
		}
		if r.Proven() {
			notes = append(notes, "matrix")
		}
		switch r.Status() {
		case cometbft.StatusNotBuildable:
			near := cometbft.Nearest(rs, r.Version)
			if near != "" {
				notes = append(notes, "use "+near)
			}
			why = append(why, r.Version+" cannot be built here:\n"+r.Plan.Why())
		case cometbft.StatusUnknown:
			why = append(why, fmt.Sprintf("%s: %v", r.Version, r.Err))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Version, r.Line.Prefix, r.Status(), buildText(r), strings.Join(notes, ", "))
	}
	tw.Flush()
	for _, s := range why {
		fmt.Fprintf(w, "\n%s\n", s)
	}
	fmt.Fprintf(w, "\nbinaries: %s\n", cacheDir)
}

// buildText says how a release was (or would be) built.
func buildText(r cometbft.Release) string {
	switch {
	case r.Record != nil:
		return fmt.Sprintf("%s, %s", r.Record.Method, (time.Duration(r.Record.Seconds * float64(time.Second))).Round(time.Second))
	case r.Binary != "":
		return "(no build record)"
	case r.Plan != nil && r.Plan.Buildable():
		return string(r.Plan.Method)
	case r.Plan != nil && r.Plan.Declares != "":
		return string(r.Plan.Method) + " (refused)"
	}
	return "-"
}
