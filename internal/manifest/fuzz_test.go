package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever resolves
// survives an Encode/Parse round trip.
func FuzzParse(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join(fixtures, "*.toml"))
	if err != nil {
		f.Fatal(err)
	}
	if len(paths) == 0 {
		f.Fatalf("no fixture in %s", fixtures)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[config]\na = { b = [1, { c = 2 }], 'd.e' = 1979-05-27T07:32:00Z }\n"))
	f.Add([]byte("[node.a]\nconfig = { x = 1 }\n[node.a.config.y]\nz = true\n"))
	f.Add([]byte("[perturb.validator01]\naction = \"wipe\"\nheight = 3\ndown = \"0s\"\n"))
	f.Add([]byte("topology = \"seeds\"\n[node.a]\npersistent_peers = [\"s\"]\n[node.s]\nmode = \"seed\"\n[rotate]\nconcurrency = 1\n"))
	f.Add([]byte("validators = 7\nabsent = \"28.5%\"\nevidence = 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		r, err := m.Resolve()
		if err != nil {
			return
		}
		checkRoundTrip(t, r)
	})
}

// checkRoundTrip checks that the resolved manifest r survives the run
// directory's Encode/Parse round trip (its Source and Warnings, comments
// in the file, are not read back).
func checkRoundTrip(t *testing.T, r Resolved) {
	t.Helper()
	out, err := Encode(r)
	if err != nil {
		t.Fatalf("Encode of a resolved manifest: %v", err)
	}
	m2, err := Parse("encoded.toml", out)
	if err != nil {
		t.Fatalf("Parse(Encode(r)): %v\n%s", err, out)
	}
	r2, err := m2.Resolve()
	if err != nil {
		t.Fatalf("Resolve(Parse(Encode(r))): %v\n%s", err, out)
	}
	r.Source, r.Warnings = "", nil
	if !reflect.DeepEqual(r, r2) && !hasNaN(r) {
		t.Fatalf("round trip changed the manifest:\n got %+v\nwant %+v\n%s", r2, r, out)
	}
}

// hasNaN reports whether a config value of r is a NaN float, which no
// round trip can compare equal.
func hasNaN(r Resolved) bool {
	for _, n := range append([]Node{{Config: r.Config}}, r.Nodes...) {
		for _, v := range n.Config {
			if f, ok := v.(float64); ok && f != f {
				return true
			}
		}
	}
	return false
}

// FuzzParsePerturb checks that ParsePerturb never panics and that what it
// accepts, laid over the default manifest, resolves or fails with an
// error naming the flag.
func FuzzParsePerturb(f *testing.F) {
	for _, s := range []string{"validator03:kill@20s,down=5s", "v2:pause@h50,down=10s,every=30s,count=3", "validator04:restart",
		"validator01:wipe@1s,down=0s", "x:disconnect@1m,count=-1", "a:kill,every=1s",
		"validator01:upgrade@3s,to=v0.40.1", "validator02:upgrade@h5,to=v0.39.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		node, p, err := ParsePerturb(s)
		if err != nil {
			return
		}
		m := Default()
		m.AddPerturb(node, p)
		if _, err := m.Resolve(); err != nil && !strings.Contains(err.Error(), "--perturb "+node) {
			t.Fatalf("%q: an error not naming the flag: %v", s, err)
		}
	})
}
