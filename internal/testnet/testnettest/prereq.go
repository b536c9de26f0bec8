package testnettest

import (
	"fmt"
	"os"
	"testing"
)

// CIEnv is the environment variable that marks a CI run: where it is
// "true" (as GitHub Actions, GitLab CI and most others set it), a test
// that lacks what it needs fails instead of skipping.
const CIEnv = "CI"

// Prereq ends tb for a missing prerequisite (root, a program, a port, an
// environment variable such as COMETLAB_PROMETHEUS), saying what is
// missing: it skips tb on a developer's machine, and fails it where CI is
// "true" (CIEnv), so that a CI run never passes a real-node test it did
// not run. Every such skip in a test goes through it; the -short lane's
// skip (if testing.Short() {t.Skip(…)}) does not: it is the lane rule, not
// a missing prerequisite.
func Prereq(tb testing.TB, format string, args ...any) {
	tb.Helper()
	why := fmt.Sprintf(format, args...)
	if os.Getenv(CIEnv) == "true" {
		tb.Fatalf("missing prerequisite (fatal where %s=true): %s", CIEnv, why)
	} else {
		tb.Skip(why)
	}
}
