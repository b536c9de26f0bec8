package cometbft

import (
	"cmp"
	"fmt"
	"strings"
)

// Older reports whether release a precedes release b (by major, minor,
// patch; a pre-release precedes its release). Malformed versions sort last.
func Older(a, b string) bool { return compareVersions(a, b) < 0 }

// compareVersions orders releases as Older does: -1, 0 or +1.
func compareVersions(a, b string) int {
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	switch {
	case !oka || !okb:
		return cmp.Compare(b2i(!oka), b2i(!okb))
	case pa.nums != pb.nums:
		for i := range pa.nums {
			if c := cmp.Compare(pa.nums[i], pb.nums[i]); c != 0 {
				return c
			}
		}
	}
	switch {
	case pa.pre == pb.pre:
		return 0
	case pa.pre == "":
		return 1
	case pb.pre == "":
		return -1
	}
	return cmp.Compare(pa.pre, pb.pre)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

type version struct {
	nums [3]int
	pre  string
}

func parseVersion(v string) (version, bool) {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return version{}, false
	}
	var out version
	for i := range 3 {
		fmt.Sscan(m[i+1], &out.nums[i])
	}
	out.pre = m[4]
	return out, true
}

// IsRelease says whether v is written as a release version (v0.40.0,
// v1.0.1-rc1), not a binary's path or "binary …".
func IsRelease(v string) bool {
	_, ok := parseVersion(v)
	return ok
}

// NotesRelease is one release of a CHANGELOG.md: its version and its
// sections with their number of entries ("BUG FIXES (20)").
type NotesRelease struct {
	Version  string
	Sections []string
}

// ParseReleaseNotes reads the headings of a CHANGELOG.md in CometBFT's
// form ("## vX.Y.Z" a release, "### SECTION" its sections, "- " an entry)
// for the releases after from up to to: the file lists releases newest
// first, so the releases are taken from to's heading on until one that is
// not newer than from (of any line: a v0.38.21 below v0.39.0 ends a
// v0.38.26 → v0.40.0 list). A section without entries is left out.
func ParseReleaseNotes(changelog, from, to string) []NotesRelease {
	var n []NotesRelease
	var cur *NotesRelease
	section, entries := "", 0
	flush := func() {
		if cur != nil && section != "" && entries > 0 {
			cur.Sections = append(cur.Sections, fmt.Sprintf("%s (%d)", section, entries))
		}
		section, entries = "", 0
	}
	started := false
	for _, line := range strings.Split(changelog, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			v := strings.TrimSpace(strings.TrimPrefix(line, "## "))
			if !started && v != to {
				cur = nil
				continue
			}
			if started && !Older(from, v) {
				return n
			}
			started = true
			n = append(n, NotesRelease{Version: v})
			cur = &n[len(n)-1]
		case strings.HasPrefix(line, "### ") && cur != nil:
			flush()
			section = strings.TrimSpace(strings.TrimPrefix(line, "### "))
		case strings.HasPrefix(line, "- ") && cur != nil && section != "":
			entries++
		}
	}
	flush()
	return n
}
