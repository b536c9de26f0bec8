package series

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/manifest"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		text, want string // want: kind value sets, or "error: …"
	}{
		{"v0.38.26", "version v0.38.26 []"},
		{"v1.0.1-rc1", "version v1.0.1-rc1 []"},
		{"/opt/cometbft", "binary /opt/cometbft []"},
		{"base.toml", "manifest base.toml []"},
		{"consensus.timeout_commit=2s", "set  [[consensus.timeout_commit 2s]]"},
		{"config.mempool.size=100 size=512", "set  [[mempool.size 100] [load.size 512]]"},
		{"", "error: empty"},
		{"=2s", "error: \"=2s\": want key=value"},
		{"timeout_commit=2s", "error: timeout_commit: not a manifest key"},
	} {
		s, err := ParseSpec(c.text)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = strings.Join([]string{s.Kind.String(), s.Value, fmtSets(s.Sets)}, " ")
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("ParseSpec(%q) = %s, want %s…", c.text, got, c.want)
		}
	}
}

func fmtSets(sets [][2]string) string {
	var parts []string
	for _, kv := range sets {
		parts = append(parts, "["+kv[0]+" "+kv[1]+"]")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestSpecManifest(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cometbft")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	noexec := filepath.Join(dir, "plain")
	if err := os.WriteFile(noexec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(file, []byte("validators = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	def := manifest.Default()
	get := func(text string) (manifest.Manifest, error) {
		s, err := ParseSpec(text)
		if err != nil {
			return def, err
		}
		return s.Manifest(manifest.Source{}, def)
	}
	if m, err := get("v0.38.26"); err != nil || m.CometBFTVersion != "v0.38.26" {
		t.Errorf("version: %+v, %v", m.CometBFTVersion, err)
	}
	if m, err := get(bin); err != nil || m.CometBFTBinary != bin {
		t.Errorf("binary: %q, %v", m.CometBFTBinary, err)
	}
	// A directory is a source tree: the side's code, by absolute path.
	if m, err := get(dir); err != nil || m.CometBFTSource != dir || m.CometBFTVersion != "" || m.CometBFTBinary != "" {
		t.Errorf("source tree: source %q version %q binary %q, %v", m.CometBFTSource, m.CometBFTVersion, m.CometBFTBinary, err)
	}
	if _, err := get(noexec); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("not executable: %v", err)
	}
	if _, err := get(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing binary: no error")
	}
	if m, err := get(file); err != nil || m.Validators != 2 {
		t.Errorf("manifest: %d, %v", m.Validators, err)
	}
	m, err := get("consensus.timeout_commit=2s validators=3")
	if err != nil || m.Validators != 3 {
		t.Fatalf("set: %d, %v", m.Validators, err)
	}
	if def.Validators == 3 {
		t.Error("Set changed the default manifest")
	}
	if _, err := get("validators=0"); err == nil || !strings.Contains(err.Error(), "validators=0") {
		t.Errorf("bad set: %v", err)
	}
}

func TestABOrder(t *testing.T) {
	if got := ABOrder(3, 3, OrderInterleaved, 0); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("interleaved: %v", got)
	}
	for round, want := range [][]int{{0, 1}, {1, 0}, {0, 1}, {1, 0}} {
		if got := ABOrder(round, 2, OrderCounterbalanced, 0); !slices.Equal(got, want) {
			t.Errorf("counterbalanced round %d: %v, want %v (ABBA)", round, got, want)
		}
	}
	if got := ABOrder(4, 3, OrderCounterbalanced, 0); !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("counterbalanced, 3 sides, round 4: %v, want [1 2 0]", got)
	}
	first := map[int]int{}
	for round := range 200 {
		o := ABOrder(round, 2, OrderRandom, 7)
		if !slices.Equal(o, ABOrder(round, 2, OrderRandom, 7)) {
			t.Fatal("the same seed and round gave two orders")
		}
		first[o[0]]++
	}
	if first[0] < 70 || first[1] < 70 {
		t.Errorf("random order: the base first in %d of 200 rounds, the candidate in %d", first[0], first[1])
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"v0.38.26", "a.toml", "/bin/x", "consensus.timeout_commit=2s size=3", "=", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			return
		}
		if s.Kind == SpecSet && len(s.Sets) == 0 {
			t.Errorf("%q: a set spec with no overrides", text)
		}
		if s.Kind != SpecSet && s.Value == "" {
			t.Errorf("%q: %v spec with no value", text, s.Kind)
		}
	})
}
