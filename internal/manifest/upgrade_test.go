package manifest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func init() {
	goodManifests["upgrade.good.toml"] = perturbed(30*time.Second, "v1.0.0",
		Perturbation{Node: "validator01", Action: ActionUpgrade, At: 5 * time.Second, Count: 1, From: "v1.0.0", To: "v1.0.1"},
		Perturbation{Node: "validator02", Action: ActionUpgrade, Height: 20, Count: 1, From: "v1.0.0", To: "v1.0.1"})
}

// TestUpgradeResolves: upgrade.good.toml's two upgrades resolve with the
// nodes' release as From, survive Encode and Load again, and the flag
// and --set forms give the same.
func TestUpgradeResolves(t *testing.T) {
	m, err := Load(filepath.Join(fixtures, "upgrade.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := goodManifests["upgrade.good.toml"].Perturbations
	if len(r.Perturbations) != 2 || r.Perturbations[0] != want[0] || r.Perturbations[1] != want[1] {
		t.Fatalf("Perturbations = %+v, want %+v", r.Perturbations, want)
	}
	body, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "to = 'v1.0.1'") || strings.Contains(string(body), "down =") {
		t.Errorf("Encode lost the upgrade's to or gave it a down time:\n%s", body)
	}
	m2, err := Parse("encoded.toml", body)
	if err != nil {
		t.Fatal(err)
	}
	if r2, err := m2.Resolve(); err != nil || r2.Perturbations[0] != want[0] || r2.Perturbations[1] != want[1] {
		t.Errorf("encoded manifest resolves to %+v, %v", r2.Perturbations, err)
	}

	f := Default()
	f.CometBFTVersion = "v1.0.0"
	f.AddPerturb(ParsePerturbMust(t, "validator01:upgrade@5s,to=v1.0.0"))
	if _, err := f.Resolve(); err == nil || !strings.Contains(err.Error(), "--perturb validator01: v1.0.0 is the release the node already runs") {
		t.Errorf("flag to the same release: %v, want an error naming the flag", err)
	}
	if err := f.Set("perturb.validator01.to", "v1.0.1"); err != nil {
		t.Fatal(err)
	}
	if r, err := f.Resolve(); err != nil || r.Perturbations[0] != want[0] {
		t.Errorf("--set perturb.validator01.to: %+v, %v; want %+v", r.Perturbations, err, want[0])
	}
}

// TestUpgradeRefusedWith: an upgrade from a user's binary, or of the e2e
// app, is refused, naming the key.
func TestUpgradeRefusedWith(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Manifest)
		want string
	}{
		{"binary", func(m *Manifest) { m.CometBFTBinary = "/bin/true" }, "the node runs cometbft_binary, whose release is unknown"},
		{"e2e", func(m *Manifest) { m.App = AppE2E }, `with app = "e2e" the node runs the e2e app node`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Default()
			m.CometBFTVersion = "v1.0.0"
			tc.set(&m)
			m.AddPerturb(ParsePerturbMust(t, "validator02:upgrade@1s,to=v1.0.1"))
			if _, err := m.Resolve(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Resolve = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestUpgradeToSource: an upgrade to a tree of the node's own release
// resolves (the tree's code differs, not its release), To is the tree's
// release and ToSource the tree; Encode writes to_source without to, and
// the encoded file resolves to the same; the --perturb form has it too.
func TestUpgradeToSource(t *testing.T) {
	tree, _ := filepath.Abs("../../testdata/trees/v0.40")
	m, err := Parse("m.toml", []byte("cometbft_version = \"v0.40.0\"\n[perturb.validator02]\naction = \"upgrade\"\nat = \"2s\"\nto_source = \"../../testdata/trees/v0.40\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Perturbations) != 1 {
		t.Fatalf("perturbations %+v", r.Perturbations)
	}
	p := r.Perturbations[0]
	if p.From != "v0.40.0" || p.To != "v0.40.0" || p.ToSource == nil || p.ToSource.Tree != tree || p.UpgradeTarget() != "tree:"+tree {
		t.Fatalf("upgrade %+v (source %+v)", p, p.ToSource)
	}
	body, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "to_source = '"+tree+"'") || strings.Contains(string(body), "to = ") {
		t.Errorf("Encode wrote the upgrade as:\n%s", body)
	}
	m2, err := Parse("encoded.toml", body)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := m2.Resolve()
	if err != nil || len(r2.Perturbations) != 1 || r2.Perturbations[0].UpgradeTarget() != p.UpgradeTarget() || r2.Perturbations[0].To != p.To {
		t.Errorf("the encoded manifest resolves to %+v (%v)", r2.Perturbations, err)
	}
	node, mp, err := ParsePerturb("validator02:upgrade@2s,to_source=" + tree)
	if err != nil || node != "validator02" || mp.ToSource != tree {
		t.Errorf("ParsePerturb: %s %+v %v", node, mp, err)
	}
}
