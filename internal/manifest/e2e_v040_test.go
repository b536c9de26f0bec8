package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// v040Networks is every network of CometBFT v0.40.0's test/e2e/networks/,
// read as an e2e manifest: nil when cometlab runs it as written, else the
// keys it refuses (each once, whatever the node; "*" for many), each with
// the reason in the golden file. ci.toml and long.toml are CometBFT's test of everything at once:
// light clients, remote signers, other databases and app transports,
// evidence of light-client attacks, Docker images.
var v040Networks = map[string][]string{
	"adaptive-sync.toml":       nil, // several perturbations of one node, state sync
	"app-mempool-pertrub.toml": nil,
	"app-mempool-simple.toml":  nil,
	"ci.toml": {"evidence", "initial_height", "initial_state", "ipv6",
		"node.light01.mode", "node.light02.mode", "node.validator02.privval_protocol", "node.validator03.key_type",
		"node.validator03.privval_protocol", "node.validator04.database", "node.validator05",
		"node.validator05.database", "node.validator05.privval_protocol"},
	"libp2p-app-mempool.toml":  nil,
	"libp2p-ci.toml":           nil,
	"libp2p-pertub.toml":       nil,
	"libp2p-simple.toml":       nil,
	"long.toml":                {"*"}, // 60-odd keys, in the golden file
	"mldsa65.toml":             nil,
	"secp256k1eth-libp2p.toml": nil,
	"secp256k1eth.toml":        nil,
	"simple.toml":              nil,
	"single.toml":              nil,
	"varyVESize.toml": {"abci_protocol", "evidence", "node.validator01.database", "node.validator01.privval_protocol",
		"node.validator02.database", "node.validator02.privval_protocol", "node.validator03.privval_protocol",
		"node.validator04", "node.validator04.database", "node.validator04.privval_protocol", "prometheus"},
}

// refusedKey is the key of one refusal line, FILE:LINE:COL: KEY: REASON.
var refusedKey = regexp.MustCompile(`^[^:]+:\d+:\d+: ([^:]+): `)

// TestE2ENetworksV040 reads every network of v0.40.0's test/e2e/networks/
// (testdata/e2e/v0.40.0, copied unchanged) strictly as an e2e manifest:
// those cometlab runs as written resolve; the others are refused by the
// keys the table names, use_libp2p on any node standing for each node's.
// The golden file holds each network's outcome with every reason.
func TestE2ENetworksV040(t *testing.T) {
	dir := filepath.Join(e2eFixtures, "v0.40.0")
	paths, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil || len(paths) != len(v040Networks) {
		t.Fatalf("networks %v (%v), want the %d of the table", paths, err, len(v040Networks))
	}
	var golden strings.Builder
	runs := 0
	for _, p := range paths {
		name := filepath.Base(p)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := Read(name, data, ReadOptions{Format: FormatE2E})
		if err == nil {
			_, err = m.Resolve()
		}
		golden.WriteString("== " + name + "\n")
		if err == nil {
			runs++
			golden.WriteString("runs\n")
			if v040Networks[name] != nil {
				t.Errorf("%s runs, want it refused for %v", name, v040Networks[name])
			}
			continue
		}
		var keys []string
		for _, line := range strings.Split(err.Error(), "\n") {
			var e *Error
			if mm := refusedKey.FindStringSubmatch(line); mm != nil {
				k := mm[1]
				if strings.HasSuffix(k, ".use_libp2p") {
					k = "use_libp2p"
				}
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
				golden.WriteString(line + "\n")
			} else if !errors.As(err, &e) {
				golden.WriteString(line + "\n")
			}
		}
		slices.Sort(keys)
		if slices.Equal(v040Networks[name], []string{"*"}) && len(keys) > 0 {
			continue
		}
		if !slices.Equal(keys, v040Networks[name]) {
			t.Errorf("%s refuses %q, want %q", name, keys, v040Networks[name])
		}
	}
	t.Logf("%d of %d v0.40.0 networks run as written", runs, len(paths))
	resultstest.Golden(t, filepath.Join(e2eFixtures, "golden", "v0.40.0.txt"), []byte(golden.String()))
}
