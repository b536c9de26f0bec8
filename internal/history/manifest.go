package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/pelletier/go-toml/v2"
)

// releaseKeys are the manifest keys that name the release a testnet runs,
// at the top and in each [node.NAME]: a series runs across releases, so
// ManifestHash leaves them out.
var releaseKeys = []string{"cometbft_version", "cometbft_binary", "cometbft_source", "cometbft_patches"}

// ManifestHash is the SHA-256 (hex) of a resolved manifest.toml in a
// canonical form: its TOML decoded, without the release keys
// (cometbft_version, cometbft_binary, cometbft_source and
// cometbft_patches, at the top and in every node) and,
// when withoutLoad, without its [load] table, encoded as JSON with sorted
// keys. Comments, layout and key order do not change it; any other value
// does. A file that is not TOML hashes as its bytes, and ok is false.
func ManifestHash(data []byte, withoutLoad bool) (hash string, ok bool) {
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:]), false
	}
	for _, k := range releaseKeys {
		delete(m, k)
	}
	if nodes, isMap := m["node"].(map[string]any); isMap {
		for _, n := range nodes {
			if node, isMap := n.(map[string]any); isMap {
				for _, k := range releaseKeys {
					delete(node, k)
				}
			}
		}
	}
	if withoutLoad {
		delete(m, "load")
	}
	b, err := json.Marshal(m)
	if err != nil { // TOML values always encode; keep the bytes' hash if not
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:]), false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), true
}
