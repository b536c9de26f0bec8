package deploy

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
)

// plan200 is a 200-node plan as the QA team's testnets have them, 4 nodes
// on each of 50 hosts (ports 26656/26657/26660, 10 higher for each
// further node of a host, as cometbft.Generate gives them), and each
// node's peers in the topology top: "mesh" (every other node a persistent
// peer, cometlab's default) or "seeds" (5 seeds, every other node
// pointing at all of them, the seeds at each other).
func plan200(top string) (Plan, map[string]PeerConfig) {
	var p Plan
	peers := map[string]PeerConfig{}
	var addrs []string
	for h := range 50 {
		host := Host{Name: fmt.Sprintf("host%02d", h), Address: fmt.Sprintf("10.0.%d.%d", h/10, h%10+1)}
		for k := range 4 {
			i := 4*h + k
			n := Node{Name: fmt.Sprintf("validator%03d", i), P2PPort: 26656 + 10*k, RPCPort: 26657 + 10*k, MetricsPort: 26660 + 10*k}
			host.Nodes = append(host.Nodes, n)
			id := fmt.Sprintf("%040x", i+1)
			peers[n.Name] = PeerConfig{ID: id}
			addrs = append(addrs, fmt.Sprintf("%s@%s:%d", id, host.Address, n.P2PPort))
		}
		p.Hosts = append(p.Hosts, host)
	}
	for i := range addrs {
		name := fmt.Sprintf("validator%03d", i)
		pc := peers[name]
		switch {
		case top == "mesh":
			pc.PersistentPeers = append(append([]string{}, addrs[:i]...), addrs[i+1:]...)
		case i < 5:
			pc.PersistentPeers = append(append([]string{}, addrs[:i]...), addrs[i+1:5]...)
		default:
			pc.Seeds = addrs[:5]
		}
		peers[name] = pc
	}
	return p, peers
}

// TestCheck checks a 200-node plan in both topologies, and that each
// check fails on a plan it should refuse, naming the node and the reason.
func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		top   string
		spoil func(p *Plan, peers map[string]PeerConfig)
		want  []string // in the error; none: the plan passes
	}{
		{name: "full mesh", top: "mesh"},
		{name: "seeds", top: "seeds"},
		{name: "a seed on an unknown address", top: "seeds", spoil: func(p *Plan, peers map[string]PeerConfig) {
			pc := peers["validator150"]
			pc.Seeds = append([]string{fmt.Sprintf("%040x@10.9.9.9:26656", 1)}, pc.Seeds[1:]...)
			peers["validator150"] = pc
		}, want: []string{"node validator150 (host host37): seed 0000000000000000000000000000000000000001@10.9.9.9:26656: no node of the plan listens there"}},
		{name: "a peer on a port no node of the host has", top: "mesh", spoil: func(p *Plan, peers map[string]PeerConfig) {
			pc := peers["validator007"]
			pc.PersistentPeers[3] = strings.Replace(pc.PersistentPeers[3], ":26686", ":26696", 1)
			peers["validator007"] = pc
		}, want: []string{"node validator007 (host host01): persistent peer 0000000000000000000000000000000000000004@10.0.0.1:26696: no node of the plan listens there"}},
		{name: "a peer with another node's id", top: "seeds", spoil: func(p *Plan, peers map[string]PeerConfig) {
			pc := peers["validator199"]
			pc.Seeds = append([]string{fmt.Sprintf("%040x@10.0.0.1:26656", 99)}, pc.Seeds[1:]...)
			peers["validator199"] = pc
		}, want: []string{"0000000000000000000000000000000000000063@10.0.0.1:26656: that is node validator000, whose id is 0000000000000000000000000000000000000001"}},
		{name: "a malformed peer", top: "seeds", spoil: func(p *Plan, peers map[string]PeerConfig) {
			pc := peers["validator010"]
			pc.Seeds = []string{"10.0.0.1:26656"}
			peers["validator010"] = pc
		}, want: []string{`node validator010 (host host02): seed peer "10.0.0.1:26656": not ID@HOST:PORT`}},
		{name: "two listeners of a host on one port", top: "seeds", spoil: func(p *Plan, peers map[string]PeerConfig) {
			p.Hosts[3].Nodes[2].MetricsPort = p.Hosts[3].Nodes[1].RPCPort
		}, want: []string{"host host03: port 26667 is both validator013's rpc and validator014's metrics"}},
		{name: "a node on two hosts", top: "seeds", spoil: func(p *Plan, peers map[string]PeerConfig) {
			p.Hosts[9].Nodes[0].Name = "validator001"
		}, want: []string{"node validator001: on hosts host00 and host09"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, peers := plan200(tt.top)
			if tt.spoil != nil {
				tt.spoil(&p, peers)
			}
			err := Check(p, peers)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Check passed a plan it should refuse")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v\nwant %q in it", err, w)
				}
			}
		})
	}
}

func TestParsePeer(t *testing.T) {
	id := strings.Repeat("ab", 20)
	tests := []struct {
		in       string
		host     string
		port     int
		errorish string
	}{
		{in: id + "@10.0.0.1:26656", host: "10.0.0.1", port: 26656},
		{in: id + "@[::1]:26656", host: "::1", port: 26656},
		{in: strings.ToUpper(id) + "@validator01:1", host: "validator01", port: 1},
		{in: "10.0.0.1:26656", errorish: "not ID@HOST:PORT"},
		{in: "abc@10.0.0.1:26656", errorish: "not 40 hex digits"},
		{in: strings.Repeat("zz", 20) + "@10.0.0.1:26656", errorish: "not 40 hex digits"},
		{in: id + "@10.0.0.1", errorish: "missing port"},
		{in: id + "@10.0.0.1:0", errorish: "port in 1–65535"},
		{in: id + "@10.0.0.1:65536", errorish: "port in 1–65535"},
		{in: id + "@:26656", errorish: "port in 1–65535"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			gotID, host, port, err := ParsePeer(tt.in)
			if tt.errorish != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errorish) {
					t.Fatalf("ParsePeer(%q) = %v, want an error with %q", tt.in, err, tt.errorish)
				}
				return
			}
			if err != nil || !strings.EqualFold(gotID, id) || host != tt.host || port != tt.port {
				t.Errorf("ParsePeer(%q) = %q %q %d %v", tt.in, gotID, host, port, err)
			}
		})
	}
}

// FuzzParsePeer checks ParsePeer against its own output: what it accepts
// has a 40-hex id and a port in range, and formats back to an address it
// reads the same.
func FuzzParsePeer(f *testing.F) {
	f.Add(strings.Repeat("ab", 20) + "@10.0.0.1:26656")
	f.Add(strings.Repeat("0", 40) + "@[::1]:1")
	f.Add("x@y:z")
	f.Fuzz(func(t *testing.T, s string) {
		id, host, port, err := ParsePeer(s)
		if err != nil {
			return
		}
		if len(id) != 40 || port < 1 || port > 65535 || host == "" {
			t.Fatalf("ParsePeer(%q) accepted %q %q %d", s, id, host, port)
		}
		again := id + "@" + joinHostPort(host, port)
		id2, host2, port2, err := ParsePeer(again)
		if err != nil || id2 != id || host2 != host || port2 != port {
			t.Fatalf("ParsePeer(%q) = %q %q %d, but %q reads %q %q %d %v", s, id, host, port, again, id2, host2, port2, err)
		}
	})
}

func joinHostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
