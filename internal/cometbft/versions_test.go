package cometbft

import (
	"slices"
	"strings"
	"testing"
)

func TestLineOf(t *testing.T) {
	for _, c := range []struct {
		v, prefix, err string
	}{
		{"v0.34.35", "v0.34", ""},
		{"v0.37.18", "v0.37", ""},
		{"v0.38.26", "v0.38", ""},
		{"v0.38.0-rc3", "v0.38", ""},
		{"v0.39.4", "v0.39", ""},
		{DefaultVersion, "v0.40", ""},
		{"v1.0.1", "v1.0", ""},
		{"v0.4.0", "", "no release line"},
		{"v2.0.0-rc1", "v2.0", ""},
		{"v3.0.0", "", "no release line"},
		{"0.38.1", "", "malformed"},
		{"v0.38", "", "malformed"},
		{"latest", "", "malformed"},
	} {
		l, err := LineOf(c.v)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("LineOf(%q) error %v, want %q", c.v, err, c.err)
			}
			continue
		}
		if err != nil || l.Prefix != c.prefix {
			t.Errorf("LineOf(%q) = %q, %v; want %q", c.v, l.Prefix, err, c.prefix)
		}
	}
}

func TestOlder(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"v0.38.26", "v0.40.0", true},
		{"v0.40.0", "v0.38.26", false},
		{"v0.38.9", "v0.38.26", true},
		{"v0.38.0-rc3", "v0.38.0", true},
		{"v0.38.0", "v0.38.0-rc3", false},
		{"v0.38.0", "v0.38.0", false},
		{"v1.0.1", "v0.40.0", false},
		{"v0.40.0", "junk", true},
		{"junk", "v0.40.0", false},
	} {
		if got := Older(c.a, c.b); got != c.want {
			t.Errorf("Older(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// TestMix checks the facts' verdict for every pair of lines against what
// 2 + 2 validator testnets did (November 2026, the proven releases, 5 s
// and 10 s of load): the kvstore's InitChain app hash splits the lines in
// two; v0.40 and the lines it mixes with halted once (v0.40.0 + v1.0.1,
// "invalid block time") where a commit held a nil precommit; and v1.0's
// new consensus message makes older nodes drop its peers.
func TestMix(t *testing.T) {
	const (
		appHash = "wrong Block.Header.AppHash"
		time    = "invalid block time"
		unknown = "unknown message"
	)
	for _, c := range []struct {
		a, b            string
		starts, mayHalt bool
		evidence        []string
	}{
		{"v0.34", "v0.37", true, false, nil},
		{"v0.34", "v0.38", false, false, []string{appHash}},
		{"v0.34", "v0.39", false, false, []string{appHash}},
		{"v0.34", "v0.40", false, false, []string{appHash}},
		{"v0.34", "v1.0", false, false, []string{appHash, unknown}},
		{"v0.37", "v0.38", false, false, []string{appHash}},
		{"v0.37", "v0.39", false, false, []string{appHash}},
		{"v0.37", "v0.40", false, false, []string{appHash}},
		{"v0.37", "v1.0", false, false, []string{appHash, unknown}},
		{"v0.38", "v0.39", true, false, nil},
		{"v0.38", "v0.40", true, true, []string{time}},
		{"v0.38", "v1.0", true, false, []string{unknown}},
		{"v0.39", "v0.40", true, true, []string{time}},
		{"v0.39", "v1.0", true, false, []string{unknown}},
		{"v0.40", "v1.0", true, true, []string{time, unknown}},
	} {
		a, _ := LineByPrefix(c.a)
		b, _ := LineByPrefix(c.b)
		for _, m := range []Mixing{Mix(a, b), Mix(b, a)} {
			if m.Starts != c.starts || m.MayHalt != c.mayHalt || !slices.Equal(m.Evidence, c.evidence) || len(m.Why) != len(m.Evidence) {
				t.Errorf("Mix(%s, %s) = %+v; want starts %v, may halt %v, evidence %q", c.a, c.b, m, c.starts, c.mayHalt, c.evidence)
			}
		}
	}
}

// TestLinesFacts checks that the facts are well formed: each line's proven
// release belongs to it, parents come first, key lists are sorted without
// repeats, and the line-specific metric families are ones the default
// scrape keeps.
func TestLinesFacts(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Lines() {
		if got, err := LineOf(l.Proven); err != nil || got.Prefix != l.Prefix {
			t.Errorf("%s: proven release %s is of line %q (%v)", l.Prefix, l.Proven, got.Prefix, err)
		}
		if l.Parent != "" && !seen[l.Parent] {
			t.Errorf("%s: parent %q is not an earlier line", l.Prefix, l.Parent)
		}
		seen[l.Prefix] = true
		for name, keys := range map[string][]string{"ConfigAdded": l.ConfigAdded, "ConfigRemoved": l.ConfigRemoved,
			"GenesisAdded": l.GenesisAdded, "GenesisRemoved": l.GenesisRemoved, "E2EAppKeys": l.E2EAppKeys} {
			if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
				t.Errorf("%s: %s not sorted or repeated: %q", l.Prefix, name, keys)
			}
		}
		if l.Parent == "" && len(l.ConfigAdded)+len(l.ConfigRemoved)+len(l.GenesisAdded)+len(l.GenesisRemoved) > 0 {
			t.Errorf("%s: differences without a parent", l.Prefix)
		}
		if len(l.KeyTypes) == 0 || l.KeyTypes[0].Name != KeyEd25519 {
			t.Errorf("%s: key types %v do not start with ed25519", l.Prefix, l.KeyTypes)
		}
		for _, k := range l.KeyTypes {
			if _, ok := keygenCases[k.Name]; !ok {
				t.Errorf("%s: key type %s has no keygen constructor", l.Prefix, k.Name)
			}
			if since, err := LineOf(k.Since); k.Since != "" && (err != nil || since.Prefix != l.Prefix) {
				t.Errorf("%s: key type %s since %s, not a release of the line", l.Prefix, k.Name, k.Since)
			}
		}
		if l.MetricsNamespace == "" || l.DBBackend == "" || l.Reports == "" || l.ModulePath == "" {
			t.Errorf("%s: a fact is missing: %+v", l.Prefix, l)
		}
	}
}

// TestModuleOf: v0 and v1 releases are fetched by the module path, v2
// and later by its major version suffix.
func TestModuleOf(t *testing.T) {
	for v, want := range map[string]string{"v0.34.33": Module, "v1.0.1": Module, "v2.0.0-rc1": Module + "/v2", "v3.1.0": Module + "/v3", "x": Module} {
		if got := ModuleOf(v); got != want {
			t.Errorf("ModuleOf(%q) = %s, want %s", v, got, want)
		}
	}
}
