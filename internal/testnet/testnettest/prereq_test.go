package testnettest

import (
	"fmt"
	"testing"
)

// fakeTB records how Prereq ends a test.
type fakeTB struct {
	testing.TB
	fatal, skip string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }
func (f *fakeTB) Skip(args ...any)                  { f.skip = fmt.Sprint(args...) }

func TestPrereq(t *testing.T) {
	for _, c := range []struct {
		ci          string
		fatal, skip string
	}{
		{"true", "missing prerequisite (fatal where CI=true): no sshd: not found", ""},
		{"", "", "no sshd: not found"},
		{"false", "", "no sshd: not found"},
		{"1", "", "no sshd: not found"}, // CI means "true", as CI services set it
	} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			t.Setenv(CIEnv, c.ci)
			var f fakeTB
			Prereq(&f, "no %s: %v", "sshd", "not found")
			if f.fatal != c.fatal || f.skip != c.skip {
				t.Errorf("fatal %q, skip %q; want fatal %q, skip %q", f.fatal, f.skip, c.fatal, c.skip)
			}
		})
	}
}
