package cometbft

import (
	"fmt"
	"math/big"
)

// LibP2PProblem says why release version cannot run a libp2p node (its
// line has no [p2p.libp2p]: see [Line.LibP2P]); "" when it can.
func LibP2PProblem(version string) string {
	l, err := LineOf(version)
	if err != nil {
		return err.Error()
	}
	if !l.LibP2P {
		return fmt.Sprintf("%s has no libp2p networking ([p2p.libp2p] came with v0.39)", version)
	}
	return ""
}

// LibP2PID returns the libp2p peer id of the node whose home is home, as
// `cometbft show-node-id --libp2p` prints it (lp2p.IDFromPrivateKey): the
// identity multihash of the node key's public key in libp2p's protobuf
// form (type Ed25519 = 1), base58btc-encoded ("12D3KooW…").
func LibP2PID(home string) (string, error) {
	pub, err := nodePubKey(home)
	if err != nil {
		return "", err
	}
	return libp2pIDOfEd25519(pub), nil
}

// libp2pIDOfEd25519 is the peer id of an ed25519 public key: the
// protobuf PublicKey{Type: Ed25519, Data: pub} (08 01 12 20 pub) is 36
// bytes, under the 42 that libp2p hashes, so the id is its identity
// multihash (00 24 …).
func libp2pIDOfEd25519(pub []byte) string {
	mh := append([]byte{0x00, 0x24, 0x08, 0x01, 0x12, 0x20}, pub...)
	return base58(mh)
}

// base58 encodes b in Bitcoin's base58 alphabet (multibase base58btc
// without its 'z' prefix, as peer ids are written).
func base58(b []byte) string {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	n := new(big.Int).SetBytes(b)
	base, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, alphabet[0])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// bootstrapPeers returns node i's p2p.libp2p.bootstrap_peers, as CometBFT's
// e2e runner writes them (MakeLibp2pAddressBook): its seeds, then its
// persistent peers, each once (persistent = true when it is a persistent
// peer), each as {host, id} with
// host the address peerAddrs gives (the peer's listener, or the relay in
// front of it) and id the peer's libp2p id.
func bootstrapPeers(spec Spec, n NodeSpec, homes []Home, i int) ([]any, error) {
	peers, seeds, err := peerHosts(spec, n, homes, i)
	if err != nil {
		return nil, err
	}
	persistent := map[string]bool{}
	for _, p := range peers {
		persistent[p.home.Name] = true
	}
	out := []any{}
	seen := map[string]bool{}
	for _, p := range append(seeds, peers...) {
		if seen[p.home.Name] {
			continue
		}
		seen[p.home.Name] = true
		if p.home.LibP2PID == "" {
			return nil, fmt.Errorf("node %s has no libp2p id", p.home.Name)
		}
		out = append(out, map[string]any{"host": p.addr, "id": p.home.LibP2PID, "persistent": persistent[p.home.Name]})
	}
	return out, nil
}

// setBootstrapPeers sets p2p.libp2p.bootstrap_peers in a decoded
// config.toml. The key is not there to overwrite: v0.40.0's template
// writes it on its comment's line ("# format: … }bootstrap_peers = []"),
// so [setKey] would refuse it; the [p2p.libp2p] section must exist.
func setBootstrapPeers(cfg map[string]any, peers []any) error {
	p2p, _ := cfg["p2p"].(map[string]any)
	lp, ok := p2p["libp2p"].(map[string]any)
	if !ok {
		return fmt.Errorf("no section [p2p.libp2p] in this version's config.toml")
	}
	lp["bootstrap_peers"] = peers
	return nil
}
