package series

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// TestABSidesFlags is the bug "ab --perturb … --cand FILE perturbs the
// base only": every side, a manifest file's too, gets the command line's
// perturbation, partition and load flags, and a manifest file is read in
// the format and leniency the command line gives.
func TestABSidesFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cand := write("other.toml", "validators = 4\n[config]\n\"consensus.timeout_commit\" = \"2s\"\n")
	// An e2e manifest that only --lenient takes (ipv6 changes nothing
	// measured).
	e2e := write("e2e.toml", "ipv6 = true\n[node.validator01]\n[node.validator02]\n[node.validator03]\n[node.validator04]\n")
	d := 15 * time.Second
	src := manifest.Source{Overrides: manifest.Overrides{Perturb: []string{"validator02:kill@5s,down=3s"}, Duration: &d}}
	for _, tt := range []struct {
		name  string
		src   manifest.Source
		specs []string
	}{
		{"cometlab file", src, []string{cand}},
		{"version and file", src, []string{"v0.38.26", cand}},
		{"e2e file, lenient", withRead(src, manifest.FormatE2E, true), []string{e2e}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sides, labels, err := ABSides(tt.src, "", tt.specs, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sides) != len(tt.specs)+1 {
				t.Fatalf("%d sides, want %d", len(sides), len(tt.specs)+1)
			}
			for i, s := range sides {
				if len(s.Perturbations) != 1 || s.Perturbations[0].Node != "validator02" || s.Perturbations[0].Action != "kill" {
					t.Errorf("side %s: perturbations %+v, want validator02's kill", labels[i], s.Perturbations)
				}
				if s.Load.Duration != d {
					t.Errorf("side %s: load duration %s, want the flag's %s", labels[i], s.Load.Duration, d)
				}
			}
		})
	}
	// Read strictly, the e2e file is refused by name, as the base's own
	// manifest would be.
	// The error is the candidate's (a *SideError, side 1), which a
	// command names by its own flag.
	_, _, err := ABSides(withRead(src, manifest.FormatE2E, false), "", []string{e2e}, false, nil)
	var se *SideError
	if !errors.As(err, &se) || se.Side != 1 || se.Spec != e2e || !strings.Contains(err.Error(), "ipv6") ||
		!strings.HasPrefix(se.Named("--base", "--cand"), "--cand ") {
		t.Errorf("strict e2e candidate: %v, want ipv6 refused as side 1's", err)
	}
	if code, _ := exitcode.Of(err); code != exitcode.Usage {
		t.Errorf("exit code %d, want %d", code, exitcode.Usage)
	}
}

func withRead(s manifest.Source, format string, lenient bool) manifest.Source {
	s.Read = manifest.ReadOptions{Format: format, Lenient: lenient}
	return s
}
