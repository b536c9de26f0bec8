package cometbft

import (
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
	{Prefix: "v0.34", MetricsNamespace: "cometbft"},
	{Prefix: "v0.37", MetricsNamespace: "cometbft"},
	{Prefix: "v0.38", MetricsNamespace: "cometbft"},
	{Prefix: "v0.39", MetricsNamespace: "cometbft", HasLibP2P: true},
	{Prefix: "v0.40", MetricsNamespace: "cometbft", HasLibP2P: true},
	{Prefix: "v1.0", MetricsNamespace: "cometbft", TimeoutCommitInGenesis: true},
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
func Older(a, b string) bool {
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	switch {
	case !oka || !okb:
		return oka && !okb
	case pa.nums != pb.nums:
		for i := range pa.nums {
			if pa.nums[i] != pb.nums[i] {
				return pa.nums[i] < pb.nums[i]
			}
		}
	}
	return pa.pre != "" && (pb.pre == "" || pa.pre < pb.pre)
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
