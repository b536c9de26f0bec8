package history

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Version is a release name parsed as semantic versioning: v0.38.26,
// 0.38.26, v1.0.0-rc1; build metadata (+…) is dropped.
type Version struct {
	Major, Minor, Patch int
	Pre                 string // the pre-release ("rc1", "alpha.2"); "" for a release
}

// ParseVersion reads the first word of s as a version: an optional v,
// then MAJOR.MINOR.PATCH (MINOR and PATCH may be left out), an optional
// -PRE and +BUILD. "v0.40.0 (reports itself as 0.40.0-dev)" is v0.40.0;
// "binary /usr/bin/cometbft" and "mixed: …" are no version.
func ParseVersion(s string) (Version, bool) {
	word, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	word = strings.TrimPrefix(word, "v")
	word, _, _ = strings.Cut(word, "+")
	core, pre, hasPre := strings.Cut(word, "-")
	if hasPre && pre == "" {
		return Version{}, false
	}
	parts := strings.Split(core, ".")
	if len(parts) > 3 {
		return Version{}, false
	}
	var nums [3]int
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 9 {
			return Version{}, false
		}
		nums[i], _ = strconv.Atoi(p)
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2], Pre: pre}, true
}

// String writes the version as vMAJOR.MINOR.PATCH[-PRE].
func (v Version) String() string {
	s := fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Compare orders versions by semantic-versioning precedence: a
// pre-release before its release, pre-release identifiers compared
// numerically when both are numbers, else as text, fewer first.
func (v Version) Compare(o Version) int {
	if c := cmp.Or(cmp.Compare(v.Major, o.Major), cmp.Compare(v.Minor, o.Minor), cmp.Compare(v.Patch, o.Patch)); c != 0 {
		return c
	}
	switch {
	case v.Pre == o.Pre:
		return 0
	case v.Pre == "":
		return 1
	case o.Pre == "":
		return -1
	}
	a, b := strings.Split(v.Pre, "."), strings.Split(o.Pre, ".")
	for i := range min(len(a), len(b)) {
		na, ea := strconv.Atoi(a[i])
		nb, eb := strconv.Atoi(b[i])
		var c int
		switch {
		case ea == nil && eb == nil:
			c = cmp.Compare(na, nb)
		case ea == nil:
			c = -1
		case eb == nil:
			c = 1
		default:
			c = strings.Compare(a[i], b[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// CompareReleases orders release names: versions by precedence, before
// every name that is no version ("binary …", "mixed: …"), which are in
// text order.
func CompareReleases(a, b string) int {
	va, oka := ParseVersion(a)
	vb, okb := ParseVersion(b)
	switch {
	case oka && okb:
		if c := va.Compare(vb); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	case oka:
		return -1
	case okb:
		return 1
	}
	return strings.Compare(a, b)
}

// ParseTime reads a time as people write one on a command line: a date
// (2026-11-01, midnight UTC), a date and time (2026-11-01T10:00,
// "2026-11-01 10:00", UTC), RFC 3339 (2026-11-01T10:00:00+01:00), or an
// age before now: a number and a unit of s, m, h, d (days) or w (weeks),
// "7d", "36h", "1.5w".
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	if n := len(s); n >= 2 {
		unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[n-1]]
		v, err := strconv.ParseFloat(s[:n-1], 64)
		if unit > 0 && err == nil && v >= 0 && v*float64(unit) < float64(200*365*24*time.Hour) {
			return now.Add(-time.Duration(v * float64(unit))).UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want a date (2026-11-01), a date and time (2026-11-01T10:00, RFC 3339) or an age (7d, 36h, 2w)", s)
}
