package analysis

import (
	"regexp"
	"slices"
	"testing"
)

func TestDictionary(t *testing.T) {
	idRE := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	units := Units()
	seen := map[string]bool{}
	for _, m := range Dictionary() {
		t.Run(m.ID, func(t *testing.T) {
			if !idRE.MatchString(m.ID) {
				t.Errorf("id %q is not snake_case", m.ID)
			}
			if seen[m.ID] {
				t.Errorf("id %q appears twice", m.ID)
			}
			seen[m.ID] = true
			if m.Title == "" || m.Definition == "" || m.Source == "" {
				t.Errorf("empty title, definition or source: %+v", m)
			}
			if !slices.Contains(units, m.Unit) {
				t.Errorf("unit %q is not one of %q", m.Unit, units)
			}
			if !slices.Contains(Groups(), m.Group) {
				t.Errorf("group %q is not one of %q", m.Group, Groups())
			}
			if m.Better.String() == "unknown" {
				t.Errorf("Better not set")
			}
			if got, ok := Lookup(m.ID); !ok || got != m {
				t.Errorf("Lookup(%q) = %+v, %v", m.ID, got, ok)
			}
		})
	}
	if _, ok := Lookup("no_such_metric"); ok {
		t.Error("Lookup found no_such_metric")
	}
	d := Dictionary()
	d[0].Title = "changed"
	if Dictionary()[0].Title == "changed" {
		t.Error("Dictionary returned a shared slice")
	}
}

func TestBetterString(t *testing.T) {
	for b, want := range map[Better]string{HigherIsBetter: "higher", LowerIsBetter: "lower", Neutral: "neutral", 0: "unknown"} {
		if got := b.String(); got != want {
			t.Errorf("Better(%d).String() = %q, want %q", b, got, want)
		}
	}
}
