package cometbft

import (
	"cmp"
	"fmt"
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
