package manifest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

func init() {
	split := shaped(200, 30*time.Second, 1, shape.Spec{})
	split.Links = LinksRelay
	split.Partition = &Partition{Split: "50/50", Groups: [][]string{{"validator01", "validator02"}, {"validator03", "validator04"}},
		Power: []int64{2, 2}, Total: 4, At: 5 * time.Second, Duration: 6 * time.Second}
	goodManifests["partition.good.toml"] = split
	node := func(name, mode string, power int64) Node {
		return Node{Name: name, Mode: mode, Power: power, Version: "v0.40.0", Config: map[string]any{}}
	}
	goodManifests["partition-groups.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay", Topology: "mesh",
		Config: map[string]any{}, Load: defaultLoad,
		Nodes: []Node{node("validator01", ModeValidator, 3), node("validator02", ModeValidator, 1), node("validator03", ModeValidator, 1),
			node("full01", ModeFull, 0)},
		Partition: &Partition{Groups: [][]string{{"validator01", "full01"}, {"validator02", "validator03"}},
			Power: []int64{3, 2}, Total: 5, Duration: 20 * time.Second},
	}
	// A twin of validator01 on the other side: that side holds
	// validator01's power too (a twin signs with its key), and the event
	// gives the testnet's total, 40, beside the groups' 20/30.
	twins := node("twin01", ModeFull, 0)
	twins.TwinOf = "validator01"
	goodManifests["partition-twins.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay", Topology: "mesh",
		Config: map[string]any{}, Load: defaultLoad,
		Nodes: []Node{node("validator01", ModeValidator, 10), node("validator02", ModeValidator, 10), node("validator03", ModeValidator, 10),
			node("validator04", ModeValidator, 10), twins},
		Partition: &Partition{Groups: [][]string{{"validator01", "validator02"}, {"twin01", "validator03", "validator04"}},
			Power: []int64{20, 30}, Total: 40, At: 3 * time.Second, Duration: 5 * time.Second},
	}
	for name, errs := range map[string][]string{
		"partition.bad.toml": {
			`partition.bad.toml:5:1: partition.split: invalid split "90/20": the shares sum to 110, want 100`,
			"partition.bad.toml:6:1: partition.at: begins at 40s, after the load ends (load.duration 30s)",
			"partition.bad.toml:7:1: partition.duration: must be > 0, got 0s",
		},
		"partition-groups.bad.toml": {
			`partition-groups.bad.toml:1:1: links: a [partition] cuts the links in relays: it needs links = "relay" (or "auto")`,
			`partition-groups.bad.toml:4:1: partition.groups: node "validator01" is in group 1 and group 1`,
			`partition-groups.bad.toml:4:1: partition.groups: no node named "nobody"`,
			`partition-groups.bad.toml:4:1: partition.groups: validator02, validator03, validator04 in no group`,
		},
		"partition-split.bad.toml":   {"partition-split.bad.toml:3:1: partition.split: 90/10 leaves group 2 without a validator (validators' power 4)"},
		"partition-both.bad.toml":    {"partition-both.bad.toml:3:1: partition.groups: set split or groups, not both"},
		"partition-unknown.bad.toml": {"partition-unknown.bad.toml:3:1: partition.start: unknown field"},
	} {
		badManifests[name] = errs
	}
}

// TestSplitGroups checks how stake shares split the validators: each goes
// to the group its middle falls in, full nodes to the first group, and a
// group left without a validator is an error.
func TestSplitGroups(t *testing.T) {
	v := func(name string, power int64) Node { return Node{Name: name, Mode: ModeValidator, Power: power} }
	four := []Node{v("a", 1), v("b", 1), v("c", 1), v("d", 1)}
	for _, tc := range []struct {
		split string
		nodes []Node
		want  [][]string
		err   string
	}{
		{"50/50", four, [][]string{{"a", "b"}, {"c", "d"}}, ""},
		{"75/25", four, [][]string{{"a", "b", "c"}, {"d"}}, ""},
		{"70/30", four, [][]string{{"a", "b", "c"}, {"d"}}, ""},
		{"25/75", four, [][]string{{"a"}, {"b", "c", "d"}}, ""},
		{"50/25/25", four, [][]string{{"a", "b"}, {"c"}, {"d"}}, ""},
		{"34/66", []Node{v("a", 10), v("b", 1), v("c", 9), {Name: "f", Mode: ModeFull}}, [][]string{{"a", "f"}, {"b", "c"}}, ""},
		{"90/10", four, nil, "leaves group 2 without a validator"},
		{"50", four, nil, "want two shares or more"},
		{"50/x", four, nil, `"x" is not a share`},
		{"-50/150", four, nil, `"-50" is not a share`},
	} {
		t.Run(tc.split, func(t *testing.T) {
			ps := &problems{m: &Manifest{}}
			got := splitGroups(ps, tc.split, tc.nodes)
			err := ps.err()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("got %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}

// TestParsePartition checks the --partition flag's forms, and that a
// value it set that does not resolve is reported against the flag.
func TestParsePartition(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ManifestPartition
		err  string
	}{
		{"50/50@5s,duration=6s", ManifestPartition{Split: "50/50", At: "5s", Duration: "6s"}, ""},
		{"75/25", ManifestPartition{Split: "75/25"}, ""},
		{"validator01+validator02/validator03@1m", ManifestPartition{Groups: [][]string{{"validator01", "validator02"}, {"validator03"}}, At: "1m"}, ""},
		{"validator01", ManifestPartition{}, "want two groups or more"},
		{"50/50@soon", ManifestPartition{}, `invalid time "soon"`},
		{"50/50,for=6s", ManifestPartition{}, `unknown key "for"`},
		{"50/50,6s", ManifestPartition{}, `"6s" is not KEY=VALUE`},
		{"Val/x", ManifestPartition{}, "neither stake shares nor groups"},
	} {
		got, err := ParsePartition(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Split != tc.want.Split || got.At != tc.want.At || got.Duration != tc.want.Duration ||
			!slices.EqualFunc(got.Groups, tc.want.Groups, slices.Equal) {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	m := Default()
	p, _ := ParsePartition("90/10@5s")
	m.SetPartition(p)
	if _, err := m.Resolve(); err == nil || !strings.Contains(err.Error(), "--partition: 90/10 leaves group 2 without a validator") {
		t.Errorf("flag's error: %v", err)
	}
}

// TestSetPartition checks the sweepable keys: partition.duration sets the
// table's duration (creating it), partition.split replaces named groups.
func TestSetPartition(t *testing.T) {
	m := Default()
	for _, kv := range [][2]string{{"partition.split", "75/25"}, {"partition.duration", "8s"}, {"partition.at", "2s"}} {
		if err := m.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Partition; p == nil || p.Split != "75/25" || p.Duration != 8*time.Second || p.At != 2*time.Second ||
		p.Describe() != "75/25 (power 3/1): validator01 validator02 validator03 | validator04" {
		t.Errorf("partition %+v", r.Partition)
	}
}

// FuzzParsePartition: whatever the flag parser takes either resolves over
// the default manifest or fails naming the flag.
func FuzzParsePartition(f *testing.F) {
	for _, s := range []string{"50/50@5s,duration=6s", "75/25", "validator01+validator02/validator03+validator04@1s",
		"33.3/33.3/33.4", "a/b", "50/50,duration=-1s", "100/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePartition(s)
		if err != nil {
			return
		}
		m := Default()
		m.SetPartition(p)
		if _, err := m.Resolve(); err != nil && !strings.Contains(err.Error(), "--partition") {
			t.Fatalf("%q: an error not naming the flag: %v", s, err)
		}
	})
}
