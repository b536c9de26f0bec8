package manifest

import (
	"strings"
	"testing"
	"time"
)

func TestParsePerturb(t *testing.T) {
	three := 3
	for _, tc := range []struct {
		in   string
		node string
		want ManifestPerturb
		err  string
	}{
		{in: "validator03:kill@20s,down=5s", node: "validator03", want: ManifestPerturb{Action: "kill", At: "20s", Down: "5s"}},
		{in: "v2:pause@h50,down=10s,every=30s,count=3", node: "v2", want: ManifestPerturb{Action: "pause", Height: 50, Down: "10s", Every: "30s", Count: &three}},
		{in: "v4:restart", node: "v4", want: ManifestPerturb{Action: "restart"}},
		{in: "v1:upgrade@3s,to=v1.0.1", node: "v1", want: ManifestPerturb{Action: "upgrade", At: "3s", To: "v1.0.1"}},
		{in: "kill@20s", err: "no node"},
		{in: ":kill", err: "no node"},
		{in: "V3:kill", err: "invalid node name"},
		{in: "v3:crash@1s", err: `invalid action "crash"`},
		{in: "v3:kill@soon", err: `invalid time "soon"`},
		{in: "v3:kill@h0", err: `invalid height "0"`},
		{in: "v3:kill,down", err: `"down" is not KEY=VALUE`},
		{in: "v3:kill,at=5s", err: `unknown key "at"`},
		{in: "v3:kill,count=x", err: `count "x" is not an integer`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			node, p, err := ParsePerturb(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || node != tc.node || p.Action != tc.want.Action || p.At != tc.want.At || p.Height != tc.want.Height ||
				p.Down != tc.want.Down || p.Every != tc.want.Every || p.count() != tc.want.count() || p.To != tc.want.To {
				t.Errorf("got %s %+v, %v; want %s %+v", node, p, err, tc.node, tc.want)
			}
		})
	}
}

// TestAddPerturb: a flag's perturbation replaces the file's table for the
// node, and errors about it name the flag.
func TestAddPerturb(t *testing.T) {
	m := Default()
	node, p, err := ParsePerturb("validator03:kill@90s")
	if err != nil {
		t.Fatal(err)
	}
	m.AddPerturb(node, p)
	_, err = m.Resolve()
	if err == nil || !strings.Contains(err.Error(), "--perturb validator03: begins at 1m30s, after the load ends") {
		t.Errorf("Resolve = %v, want an error naming --perturb validator03", err)
	}
	m.AddPerturb(ParsePerturbMust(t, "validator03:kill@10s,down=2s,every=20s,count=2"))
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := Perturbation{Node: "validator03", Action: ActionKill, At: 10 * time.Second, Down: 2 * time.Second, Every: 20 * time.Second, Count: 2}
	if len(r.Perturbations) != 1 || r.Perturbations[0] != want {
		t.Errorf("Perturbations = %+v, want [%+v]", r.Perturbations, want)
	}
}

func ParsePerturbMust(t *testing.T, s string) (string, ManifestPerturb) {
	t.Helper()
	node, p, err := ParsePerturb(s)
	if err != nil {
		t.Fatal(err)
	}
	return node, p
}

// TestSetPerturb: a sweep's --set perturb.NODE.KEY=V creates or changes the
// node's table; the manifest copied before is unaffected.
func TestSetPerturb(t *testing.T) {
	for _, k := range []string{"perturb.validator03.down", "perturb.v-1.count", "perturb.validator03.action"} {
		if got, err := SettableKey(k); err != nil || got != k {
			t.Errorf("SettableKey(%s) = %q, %v", k, got, err)
		}
	}
	for _, k := range []string{"perturb.validator03", "perturb.validator03.dwon", "perturb.V3.down"} {
		if _, err := SettableKey(k); err == nil || !strings.Contains(err.Error(), "not a perturbation key") {
			t.Errorf("SettableKey(%s): %v, want not a perturbation key", k, err)
		}
	}
	m := Default()
	m.AddPerturb(ParsePerturbMust(t, "validator03:kill@20s"))
	c := m
	for _, kv := range [][2]string{{"perturb.validator03.down", "20s"}, {"perturb.validator02.action", "pause"},
		{"perturb.validator02.height", "7"}, {"perturb.validator02.count", "2"}, {"perturb.validator02.every", "30s"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if err := c.Set("perturb.validator02.count", "two"); err == nil {
		t.Error("count=two: no error")
	}
	r, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := []Perturbation{
		{Node: "validator02", Action: ActionPause, Height: 7, Down: 5 * time.Second, Every: 30 * time.Second, Count: 2},
		{Node: "validator03", Action: ActionKill, At: 20 * time.Second, Down: 20 * time.Second, Count: 1},
	}
	if len(r.Perturbations) != 2 || r.Perturbations[0] != want[0] || r.Perturbations[1] != want[1] {
		t.Errorf("Perturbations = %+v, want %+v", r.Perturbations, want)
	}
	if m.Perturb["validator03"].Down != "" || len(m.Perturb) != 1 {
		t.Errorf("Set changed the manifest it was copied from: %+v", m.Perturb)
	}
}

// TestLinksAuto: links = "auto" is relay when a disconnect needs it, else
// direct; "relay" stays relay.
func TestLinksAuto(t *testing.T) {
	for _, tc := range []struct{ links, flag, want string }{
		{LinksAuto, "", LinksDirect},
		{LinksAuto, "validator02:kill@1s", LinksDirect},
		{LinksAuto, "validator02:disconnect@1s", LinksRelay},
		{LinksRelay, "", LinksRelay},
		{LinksDirect, "validator02:pause@1s", LinksDirect},
	} {
		m := Default()
		if err := m.Set("links", tc.links); err != nil {
			t.Fatal(err)
		}
		if tc.flag != "" {
			m.AddPerturb(ParsePerturbMust(t, tc.flag))
		}
		r, err := m.Resolve()
		if err != nil || r.Links != tc.want {
			t.Errorf("links %s with %q: %q, %v; want %q", tc.links, tc.flag, r.Links, err, tc.want)
		}
	}
}
