package cometbft

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
)

// DefaultVersion is the newest CometBFT release the Go module proxy serves
// (by release date; v1.0.x is older), pinned so that runs are repeatable.
const DefaultVersion = "v0.40.0"

// Module is the Go module CometBFT releases are fetched from.
const Module = "github.com/cometbft/cometbft"

// Line describes one release line: what differs between lines lives here
// and nowhere else.
type Line struct {
	Prefix string // "v0.38"
	// Proven is the release of the line the version-matrix test runs: the
	// newest that builds here.
	Proven string
	// MetricsNamespace is the default instrumentation.namespace.
	MetricsNamespace string
	// HasLibP2P: config.toml has a [p2p.libp2p] section (v0.39+), which
	// cometlab leaves disabled.
	HasLibP2P bool
	// TimeoutCommitInGenesis: v1.0 moved the commit delay into genesis
	// (feature.next_block_delay) and deprecated consensus.timeout_commit.
	TimeoutCommitInGenesis bool
}

// Lines are the release lines cometlab knows, oldest first.
var lines = []Line{
	{Prefix: "v0.34", Proven: "v0.34.33", MetricsNamespace: "cometbft"},
	{Prefix: "v0.37", Proven: "v0.37.18", MetricsNamespace: "cometbft"},
	{Prefix: "v0.38", Proven: "v0.38.26", MetricsNamespace: "cometbft"},
	{Prefix: "v0.39", Proven: "v0.39.4", MetricsNamespace: "cometbft", HasLibP2P: true},
	{Prefix: "v0.40", Proven: "v0.40.0", MetricsNamespace: "cometbft", HasLibP2P: true},
	{Prefix: "v1.0", Proven: "v1.0.1", MetricsNamespace: "cometbft", TimeoutCommitInGenesis: true},
}

var versionRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$`)

// LineOf returns the release line of a version such as "v0.38.26".
func LineOf(version string) (Line, error) {
	if !versionRE.MatchString(version) {
		return Line{}, fmt.Errorf("malformed version %q (want vMAJOR.MINOR.PATCH[-pre], e.g. %q)", version, DefaultVersion)
	}
	for _, l := range lines {
		if strings.HasPrefix(version, l.Prefix+".") {
			return l, nil
		}
	}
	known := make([]string, len(lines))
	for i, l := range lines {
		known[i] = l.Prefix + ".x"
	}
	return Line{}, fmt.Errorf("version %q is of no release line cometlab knows (%s)", version, strings.Join(known, ", "))
}

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

// RunSpecificConfigKeys returns the config.toml keys (dotted) that
// cometlab sets per node and per run — listen addresses on free ports,
// peers, moniker — in every release line: they differ between any two
// runs and say nothing about the setup, so comparisons leave them out.
func RunSpecificConfigKeys() []string {
	return []string{"moniker", "rpc.laddr", "p2p.laddr", "p2p.external_address", "p2p.persistent_peers", "p2p.seeds",
		"instrumentation.prometheus_listen_addr"}
}

// provenReleases are the lines' proven releases, oldest first.
func provenReleases() []string {
	vs := make([]string, len(lines))
	for i, l := range lines {
		vs[i] = l.Proven
	}
	return vs
}
