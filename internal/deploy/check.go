package deploy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// PeerConfig is what a node's home says about its peers: its own p2p id
// and the persistent peers and seeds of its config.toml, each
// "ID@HOST:PORT".
type PeerConfig struct {
	ID              string
	PersistentPeers []string
	Seeds           []string
}

// ReadPeerConfig reads the persistent peers and seeds of the CometBFT home
// dir (config/config.toml, p2p.persistent_peers and p2p.seeds, comma
// separated); the caller sets ID.
func ReadPeerConfig(home string) (PeerConfig, error) {
	path := filepath.Join(home, "config", "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return PeerConfig{}, err
	}
	var c struct {
		P2P struct {
			PersistentPeers string `toml:"persistent_peers"`
			Seeds           string `toml:"seeds"`
		} `toml:"p2p"`
	}
	if err := toml.Unmarshal(b, &c); err != nil {
		return PeerConfig{}, fmt.Errorf("%s: %w", path, err)
	}
	return PeerConfig{PersistentPeers: splitList(c.P2P.PersistentPeers), Seeds: splitList(c.P2P.Seeds)}, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParsePeer splits a CometBFT peer address "ID@HOST:PORT" (ID 40 hex
// digits, HOST an IP or a name, PORT 1–65535).
func ParsePeer(s string) (id, host string, port int, err error) {
	id, addr, ok := strings.Cut(s, "@")
	if !ok {
		return "", "", 0, fmt.Errorf("peer %q: not ID@HOST:PORT", s)
	}
	if len(id) != 40 || strings.Trim(strings.ToLower(id), "0123456789abcdef") != "" {
		return "", "", 0, fmt.Errorf("peer %q: the id is not 40 hex digits", s)
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", "", 0, fmt.Errorf("peer %q: %w", s, err)
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 || host == "" {
		return "", "", 0, fmt.Errorf("peer %q: not HOST:PORT with a port in 1–65535", s)
	}
	return id, host, port, nil
}

// Check checks a plan before anything runs on its hosts, and returns
// every problem at once (nil when there is none): each node is on one
// host only; no two listeners (P2P, RPC, metrics) of a host share a
// port; and every persistent peer and seed of every node (peers, by node
// name) resolves to a node of the plan: its HOST:PORT is a host's address
// and the P2P port of one of that host's nodes, with that node's id.
func Check(p Plan, peers map[string]PeerConfig) error {
	var errs []error
	type listener struct{ node, kind string }
	byAddr := map[string]string{} // "address:p2p port" → node
	hostOf := map[string]string{}
	for _, h := range p.Hosts {
		ports := map[int]listener{}
		for _, n := range h.Nodes {
			if other, ok := hostOf[n.Name]; ok {
				errs = append(errs, fmt.Errorf("node %s: on hosts %s and %s", n.Name, other, h.Name))
			}
			hostOf[n.Name] = h.Name
			for _, l := range []struct {
				kind string
				port int
			}{{"p2p", n.P2PPort}, {"rpc", n.RPCPort}, {"metrics", n.MetricsPort}} {
				if l.port == 0 {
					continue
				}
				if o, ok := ports[l.port]; ok {
					errs = append(errs, fmt.Errorf("host %s: port %d is both %s's %s and %s's %s", h.Name, l.port, o.node, o.kind, n.Name, l.kind))
				}
				ports[l.port] = listener{n.Name, l.kind}
			}
			byAddr[net.JoinHostPort(h.Address, strconv.Itoa(n.P2PPort))] = n.Name
		}
	}
	for _, h := range p.Hosts {
		for _, n := range h.Nodes {
			pc := peers[n.Name]
			for _, list := range []struct {
				kind  string
				addrs []string
			}{{"persistent peer", pc.PersistentPeers}, {"seed", pc.Seeds}} {
				for _, a := range list.addrs {
					if err := resolve(a, byAddr, peers); err != nil {
						errs = append(errs, fmt.Errorf("node %s (host %s): %s %w", n.Name, h.Name, list.kind, err))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// resolve checks that the peer address a is a node of byAddr with the id
// peers gives it.
func resolve(a string, byAddr map[string]string, peers map[string]PeerConfig) error {
	id, host, port, err := ParsePeer(a)
	if err != nil {
		return err
	}
	node, ok := byAddr[net.JoinHostPort(host, strconv.Itoa(port))]
	if !ok {
		return fmt.Errorf("%s: no node of the plan listens there (no host has that address, or none of its nodes that P2P port)", a)
	}
	if want := peers[node].ID; want != "" && !strings.EqualFold(want, id) {
		return fmt.Errorf("%s: that is node %s, whose id is %s", a, node, want)
	}
	return nil
}
