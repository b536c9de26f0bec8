package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadE2E checks that the e2e reader never panics, that every problem
// it reports is an [*Error] naming the file, that a lenient read refuses
// no more than a strict one, and that what resolves survives the run
// directory's Encode/Parse round trip.
// maxFuzzSeed is the largest fixture FuzzReadE2E takes as a seed.
const maxFuzzSeed = 4 << 10

func FuzzReadE2E(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join(e2eFixtures, "*.toml"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no fixture in %s (%v)", e2eFixtures, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// Not the 200-node ones (8–11 KB): under -fuzz every new
		// interesting input is minimised for up to a minute, and theirs
		// ran whole fuzz sessions without a mutation counted (their
		// reading is tested in e2e_test.go).
		if len(data) > maxFuzzSeed {
			continue
		}
		f.Add(data)
	}
	f.Add([]byte("config = [\"mempool.size = 10\", \"p2p.x = 'y'\", \"bad\"]\n[node.a]\nconfig = [\"a=1\"]\nperturb = [\"kill\", \"kill\"]\n"))
	f.Add([]byte("[validators]\na = 0\n[validator_update]\n[node.a]\nversion = \"x/e2e-node:v0.38.26\"\nzone = \"Tokyo\"\n"))
	f.Add([]byte("disable_pex = true\n[node.a]\nseeds = [\"s\", \"a\"]\npersistent_peers = [\"b\"]\nperturb = [\"disconnect\"]\n[node.b]\n[node.s]\nmode = \"seed\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, strictErr := Read("fuzz.toml", data, ReadOptions{Format: FormatE2E})
		_, _, lenientErr := Read("fuzz.toml", data, ReadOptions{Format: FormatE2E, Lenient: true})
		if strictErr == nil && lenientErr != nil {
			t.Fatalf("lenient refuses what strict takes: %v", lenientErr)
		}
		if strictErr != nil {
			var e *Error
			if !errors.As(strictErr, &e) || e.File != "fuzz.toml" {
				t.Fatalf("error %v is not an *Error naming the file", strictErr)
			}
			return
		}
		r, err := m.Resolve()
		if err != nil {
			return
		}
		checkRoundTrip(t, r)
	})
}
