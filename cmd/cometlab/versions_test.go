package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestExpandBuild: "matrix" is the default release, then every line's
// proven release, each once; "default" the default release; other names
// stay where they were.
func TestExpandBuild(t *testing.T) {
	got := expandBuild([]string{"v0.38.1", "matrix", cometbft.DefaultVersion})
	want := []string{"v0.38.1", cometbft.DefaultVersion}
	for _, l := range cometbft.Lines() {
		if !slices.Contains(want, l.Proven) {
			want = append(want, l.Proven)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("expandBuild = %v, want %v", got, want)
	}
	// "default" is the default release alone.
	if got := expandBuild([]string{"default", "v0.38.1", cometbft.DefaultVersion}); !slices.Equal(got, []string{cometbft.DefaultVersion, "v0.38.1"}) {
		t.Errorf("expandBuild(default) = %v", got)
	}
}

// TestSDKReleases: --sdk default is the default SDK release, a release
// named twice is built once, and one cometlab's chain is not built for is
// refused naming those it is.
func TestSDKReleases(t *testing.T) {
	got, err := sdkReleases([]string{"default", manifest.DefaultSDKVersion})
	if err != nil || !slices.Equal(got, []string{manifest.DefaultSDKVersion}) {
		t.Errorf("sdkReleases(default, %s) = %v, %v", manifest.DefaultSDKVersion, got, err)
	}
	if _, err := sdkReleases([]string{"v0.47.0"}); err == nil || !strings.Contains(err.Error(), manifest.DefaultSDKVersion) {
		t.Errorf("sdkReleases(v0.47.0) = %v, want a refusal naming %s", err, manifest.DefaultSDKVersion)
	}
}

// TestKeyPrograms: --keys builds the keygen and every tagged key type's
// node and keygen (with --apps its e2e app node); --key-type only what the
// named types need; a name the release lacks is refused.
func TestKeyPrograms(t *testing.T) {
	names := func(ps []cometbft.Program) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		keys, apps bool
		v          string
		only       []string
		want       []string
		err        string
	}{
		{name: "no --keys", v: "v2.0.0-rc1"},
		{name: "every key type", keys: true, v: "v2.0.0-rc1",
			want: []string{"cometlab-keygen", "cometbft-secp256k1eth", "cometlab-keygen-secp256k1eth", "cometbft-bls12381", "cometlab-keygen-bls12381"}},
		{name: "bls12_381 only", keys: true, v: "v2.0.0-rc1", only: []string{"bls12_381"},
			want: []string{"cometbft-bls12381", "cometlab-keygen-bls12381"}},
		{name: "bls12_381 with apps", keys: true, apps: true, v: "v2.0.0-rc1", only: []string{"bls12_381"},
			want: []string{"cometbft-bls12381", "cometlab-keygen-bls12381", "e2e-node-bls12381"}},
		{name: "an untagged type needs the keygen", keys: true, v: "v0.40.0", only: []string{"secp256k1"},
			want: []string{"cometlab-keygen"}},
		{name: "ed25519 needs nothing", keys: true, v: "v0.40.0", only: []string{"ed25519"}},
		{name: "not a key type of the release", keys: true, v: "v0.37.18", only: []string{"bls12_381"},
			err: "--key-type bls12_381: not a key type of v0.37.18 (ed25519, secp256k1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := keyPrograms(tc.keys, tc.apps, tc.v, tc.only)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(names(ps), tc.want) {
				t.Errorf("programs %q (%v), want %q", names(ps), err, tc.want)
			}
		})
	}
}

// TestVersionsSource prints what cometlab reads from a fake v0.40 tree (a
// plain directory: the hash of its files) and refuses a directory that is
// not a CometBFT tree, naming why.
func TestVersionsSource(t *testing.T) {
	tree := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(tree, os.DirFS("../../testdata/trees/v0.40")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "versions", "--source", tree)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	resultstest.Golden(t, filepath.Join("testdata", "versions_source.txt"), []byte(strings.ReplaceAll(out, tree, "TREE")))
	code, _, errs = run(t, "versions", "--source", "../../testdata/trees/not-cometbft")
	if code != exitcode.Usage || !strings.Contains(errs, "not a CometBFT source tree") || !strings.Contains(errs, "declares module example.com/notcometbft") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if code, _, errs = run(t, "versions", "--source", tree, "--build", "v0.40.0"); code != exitcode.Usage {
		t.Errorf("--source with --build: exit %d: %s", code, errs)
	}
}
