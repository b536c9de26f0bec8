package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func init() {
	nodes := validators(4, "v0.40.0")
	nodes[3].Absent = true
	l := defaultLoad
	l.Duration = 20 * time.Second
	goodManifests["absent.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: l, Evidence: 2,
	}
	share := validators(4, "v0.40.0")
	for i, p := range []int64{23, 22, 22, 33} {
		share[i].Power = p
	}
	share[3].Absent = true
	goodManifests["absent-share.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: share, Load: defaultLoad,
	}
	badManifests["absent.bad.toml"] = []string{
		`absent.bad.toml:1:1: absent: "validator04" is named twice`,
		`absent.bad.toml:1:1: absent: no node named "nobody"`,
		`absent.bad.toml:1:1: absent: node "full01" is a full node: only validators are absent`,
		"absent.bad.toml:2:1: evidence: must be between 0 and 100, got 101",
		`absent.bad.toml:12:1: load.target: node "validator04" is absent (never started)`,
		`absent.bad.toml:14:2: perturb.validator04: node "validator04" is absent (never started)`,
	}
	badManifests["absent-quorum.bad.toml"] = []string{
		"absent-quorum.bad.toml:2:1: absent: the validators left hold 2 of the 3 voting power, not more than 2/3: the chain could not commit",
	}
	badManifests["absent-type.bad.toml"] = []string{
		`absent-type.bad.toml:1:1: absent: want a list of validator names or a stake share such as "25%" (0 ≤ share < 100), got a TOML integer`,
	}
	badManifests["absent-none.bad.toml"] = []string{
		"absent-none.bad.toml:2:1: absent: a share of 30% of the voting power selects no validator",
	}
	badManifests["evidence-binary.bad.toml"] = []string{
		"evidence-binary.bad.toml:2:1: evidence: evidence needs a known release",
	}
}

// TestAbsentShare: a share makes absent the last validators that fit in
// it, skipping other modes; the boundary is inclusive.
func TestAbsentShare(t *testing.T) {
	v := func(name string, power int64) Node { return Node{Name: name, Mode: ModeValidator, Power: power} }
	four := []Node{v("a", 1), v("b", 1), v("c", 1), v("d", 1)}
	for _, tc := range []struct {
		name  string
		nodes []Node
		share float64
		want  []string
	}{
		{"quarter", four, 25, []string{"d"}},
		{"just under a quarter", four, 24.9, nil},
		{"half", four, 50, []string{"c", "d"}},
		{"a third of four", four, 33, []string{"d"}},
		{"stops at the first that does not fit", []Node{v("a", 1), v("b", 1), v("c", 5), v("d", 1)}, 20, []string{"d"}},
		{"full nodes skipped", append(slices.Clone(four), Node{Name: "f", Mode: ModeFull}), 25, []string{"d"}},
		{"RELEASES.md's 33 of 100", []Node{v("a", 23), v("b", 22), v("c", 22), v("d", 33)}, 33, []string{"d"}},
		{"zero", four, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := absentShare(tc.nodes, tc.share); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("absentShare(%g) = %v, want %v", tc.share, got, tc.want)
			}
		})
	}
}

// TestAbsentValue: the forms the absent key takes, and what it refuses.
func TestAbsentValue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    any
		names []string
		share float64
		ok    bool
	}{
		{"none", nil, nil, 0, true},
		{"names", []any{"v1", "v2"}, []string{"v1", "v2"}, 0, true},
		{"share", "25%", nil, 25, true},
		{"fractional share", "12.5%", nil, 12.5, true},
		{"zero share", "0%", nil, 0, true},
		{"hundred", "100%", nil, 0, false},
		{"negative", "-5%", nil, 0, false},
		{"no percent sign", "25", nil, 0, false},
		{"a name as a string", "validator04", nil, 0, false},
		{"NaN", "NaN%", nil, 0, false},
		{"mixed list", []any{"v1", int64(2)}, nil, 0, false},
		{"integer", int64(1), nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names, share, ok := absentValue(tc.in)
			if ok != tc.ok || (ok && (!reflect.DeepEqual(names, tc.names) || share != tc.share)) {
				t.Errorf("absentValue(%v) = %v, %g, %v; want %v, %g, %v", tc.in, names, share, ok, tc.names, tc.share, tc.ok)
			}
		})
	}
}

// TestSetAbsent: --set absent= and evidence= change the resolved testnet;
// bad text is an error naming the key.
func TestSetAbsent(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		absent     []string
		evidence   int
		err        string
	}{
		{"absent", "25%", []string{"validator04"}, 0, ""},
		{"absent", "validator02+validator03", nil, 0, "not more than 2/3"},
		{"absent", "validator02", []string{"validator02"}, 0, ""},
		{"absent", "none", nil, 0, ""},
		{"absent", "0%", nil, 0, ""},
		{"absent", "120%", nil, 0, "absent: want a share N% with 0 ≤ N < 100"},
		{"absent", "validator02+", nil, 0, "absent: want validator names joined by"},
		{"evidence", "3", nil, 3, ""},
		{"evidence", "x", nil, 0, `evidence: want an integer, got "x"`},
		{"evidence", "-1", nil, 0, "evidence: must be between 0 and 100, got -1"},
	} {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			m := Default()
			err := m.Set(tc.key, tc.value)
			var r Resolved
			if err == nil {
				r, err = m.Resolve()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.AbsentNames(); !reflect.DeepEqual(got, tc.absent) || r.Evidence != tc.evidence {
				t.Errorf("absent %v, evidence %d; want %v, %d", got, r.Evidence, tc.absent, tc.evidence)
			}
		})
	}
}

// TestAbsentTarget: the default load target is the first validator that
// runs.
func TestAbsentTarget(t *testing.T) {
	m := Default()
	if err := m.Set("absent", "validator01"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.Load.Target != "validator02" {
		t.Errorf("target %q, want validator02", r.Load.Target)
	}
}

// TestGoodManifestsDetected: every *.good.toml fixture is read as
// cometlab's own format (absent.good.toml's evidence key, which the e2e
// format has too, once made it look like an e2e manifest).
func TestGoodManifestsDetected(t *testing.T) {
	for _, name := range fixtureNames(t, ".good.toml") {
		data, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		if format, reason := DetectFormat(data); format != FormatCometlab {
			t.Errorf("%s: detected as %s (%s)", name, format, reason)
		}
	}
}
