package manifest

import (
	"fmt"
	"math"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/payload"
)

// duration parses the Go duration string s, which must be > 0 (>= 0 when
// zeroOK).
func duration(ps *problems, field []string, s string, zeroOK bool) time.Duration {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		ps.add(field, "invalid duration %q (want a Go duration such as \"90s\" or \"2m\")", s)
	case d < 0 || d == 0 && !zeroOK:
		ps.add(field, "%s", checkDuration(d, zeroOK))
	}
	return d
}

// The check functions below return "" for a good value and otherwise what
// is wrong with it; Resolve and Apply share them.

// checkVersion asks the package that knows CometBFT's releases whether v is
// one cometlab can run.
func checkVersion(v string) string {
	if _, err := cometbft.LineOf(v); err != nil {
		return err.Error()
	}
	return ""
}

func checkValidators(n int) string {
	if n < 1 || n > MaxValidators {
		return fmt.Sprintf("must be between 1 and %d, got %d", MaxValidators, n)
	}
	return ""
}

func checkConnections(c int) string {
	if c < 1 {
		return fmt.Sprintf("must be >= 1, got %d", c)
	}
	return ""
}

func checkRate(r float64) string {
	if !(r > 0) || math.IsInf(r, 0) {
		return fmt.Sprintf("must be > 0 and finite, got %v", r)
	}
	return ""
}

func checkSize(s int) string {
	switch {
	case s < payload.MinSize():
		return fmt.Sprintf("must be >= %d (the largest payload header), got %d", payload.MinSize(), s)
	case s > MaxTxSize:
		return fmt.Sprintf("must be <= %d (4 MiB), got %d", MaxTxSize, s)
	case s%2 != 0:
		return fmt.Sprintf("must be even, got %d", s)
	}
	return ""
}

func checkDuration(d time.Duration, zeroOK bool) string {
	switch {
	case zeroOK && d < 0:
		return fmt.Sprintf("must be >= 0, got %v", d)
	case !zeroOK && d <= 0:
		return fmt.Sprintf("must be > 0, got %v", d)
	}
	return ""
}

func checkPacing(p string) string {
	if p != PacingEven && p != PacingBurst {
		return fmt.Sprintf("invalid pacing %q (want %q or %q)", p, PacingEven, PacingBurst)
	}
	return ""
}
