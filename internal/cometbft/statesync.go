package cometbft

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
)

// StateSyncDiscovery is how long a state-syncing node looks for
// snapshots before it chooses one: the e2e runner's 5 s (CometBFT's
// default is 15 s).
const StateSyncDiscovery = "5s"

// stateSyncServers are the light client's RPC servers of node i: every
// node that starts with the testnet and serves the chain (not a seed, an
// ephemeral, absent or late node), host:port as the e2e runner writes
// them.
func stateSyncServers(spec Spec, homes []Home, i int) []string {
	var out []string
	for j, o := range spec.Nodes {
		if j == i || o.Mode == ModeSeed || o.Ephemeral || o.Absent || o.StartAt > 0 {
			continue
		}
		out = append(out, net.JoinHostPort(homes[j].host(), strconv.Itoa(homes[j].RPCPort)))
	}
	return out
}

// trustKeys match config.toml's statesync trust_height and trust_hash
// lines.
var (
	trustHeight = regexp.MustCompile(`(?m)^(\s*)trust_height\s*=.*$`)
	trustHash   = regexp.MustCompile(`(?m)^(\s*)trust_hash\s*=.*$`)
)

// SetStateSyncTrust writes the trusted height and block hash (hex) into
// the node home's config.toml, as the e2e runner does just before it
// starts a state-syncing node.
func SetStateSyncTrust(home string, height int64, hash string) error {
	path := ConfigFile(home)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !trustHeight.Match(b) || !trustHash.Match(b) {
		return fmt.Errorf("%s: no statesync trust_height and trust_hash to set", path)
	}
	b = trustHeight.ReplaceAll(b, []byte(fmt.Sprintf("${1}trust_height = %d", height)))
	b = trustHash.ReplaceAll(b, []byte(fmt.Sprintf("${1}trust_hash = %q", hash)))
	return os.WriteFile(path, b, 0o644)
}
