package experiment_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestLibP2P runs 4 validators of v0.40.0 on go-libp2p (libp2p = true, as
// CometBFT's e2e network libp2p-simple.toml) under 100 tx/s for 8 s:
// every transaction sent is committed, counted from the blocks; each
// node's log says it networks with libp2p under the peer id cometlab
// derived from its node key, and every pair of nodes connected by their
// libp2p ids (either side logs it: the p2p module at info); and its config.toml names them as
// bootstrap peers, with no persistent_peers.
func TestLibP2P(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real libp2p testnet")
	}
	experimenttest.Proves(t)
	m := loadManifest(t, "libp2p.toml", "libp2p = true\nlog_level = \"state:info,p2p:info,*:error\"\n[load]\nrate = 100\nduration = \"8s\"\n")
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 800)
	homes, err := filepath.Glob(filepath.Join(dir, results.NodesDir, "validator*"))
	if err != nil || len(homes) != 4 {
		t.Fatalf("validator homes %v (%v), want 4", homes, err)
	}
	ids := map[string]string{} // node → libp2p id
	for _, h := range homes {
		id, err := cometbft.LibP2PID(h)
		if err != nil {
			t.Fatal(err)
		}
		ids[filepath.Base(h)] = id
	}
	connected := regexp.MustCompile(`(?:Connected|Reconnected) to peer.*peer_id=(\S+)`)
	linked := map[[2]string]bool{} // unordered pairs of libp2p ids either side connected
	for _, h := range homes {
		name := filepath.Base(h)
		cfg, err := os.ReadFile(cometbft.ConfigFile(h))
		if err != nil {
			t.Fatal(err)
		}
		for other, id := range ids {
			if other != name && !strings.Contains(string(cfg), id) {
				t.Errorf("%s: config.toml's bootstrap peers lack %s (%s)", name, other, id)
			}
		}
		log, err := os.ReadFile(filepath.Join(dir, results.LogsDir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), "Using libp2p transport") || !strings.Contains(string(log), "host_id="+ids[name]) {
			t.Errorf("%s: the log does not say it uses libp2p as %s", name, ids[name])
		}
		for _, mm := range connected.FindAllStringSubmatch(string(log), -1) {
			linked[pair(ids[name], mm[1])] = true
		}
	}
	for a, ida := range ids {
		for b, idb := range ids {
			if a < b && !linked[pair(ida, idb)] {
				t.Errorf("%s and %s never connected by libp2p (%s, %s)", a, b, ida, idb)
			}
		}
	}
}

// pair is an unordered pair of strings.
func pair(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// TestLibP2PZones runs the 4 validators of TestZones (zones z1 … z4,
// one-way delays of 20 to 60 ms) on libp2p under 50 tx/s for 8 s, each
// node behind its UDP relay: every transaction commits; the relays' round
// trips (QUIC's first exchange through them) are the matrix's within the
// bounds TestZones holds TCP to; and nothing went around the relays — no
// datagram came from elsewhere than a node's listener, every ordered pair
// of nodes sent bytes through them, and for every pair the relays carried
// at least the bytes the sender's own p2p_peer_send_bytes_total counts
// for that peer (message payloads, before QUIC's headers and
// encryption): a pair talking directly would fall short.
func TestLibP2PZones(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real libp2p testnet")
	}
	mf := zonedManifestFile(t, true)
	mf.LibP2P = true
	m, err := mf.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 400)
	if !res.Run.LibP2P {
		t.Error("run.json does not say libp2p")
	}
	for _, p := range analysis.ZoneRoundTrips(res.Run) {
		t.Logf("%s ↔ %s: matrix %.0f ms, measured min %.1f ms, median %.1f ms over %d sessions", p.From, p.To, p.MatrixMs, p.MinMs, p.MedianMs, p.N)
		if p.MinMs < p.MatrixMs-1 || p.MinMs >= 2*p.MatrixMs {
			t.Errorf("%s ↔ %s: measured round trip %.1f ms, matrix %.0f ms: want at least the matrix's, below twice it", p.From, p.To, p.MinMs, p.MatrixMs)
		}
	}
	if n := len(analysis.ZoneRoundTrips(res.Run)); n < 6 {
		t.Errorf("round trips of %d zone pairs, want all 6", n)
	}
	checkRelayedBytes(t, res, dir)
}

// checkRelayedBytes checks run.json's UDP relay counts against the nodes'
// own per-peer byte counters (see TestLibP2PZones).
func checkRelayedBytes(t *testing.T, res experiment.Result, dir string) {
	t.Helper()
	u := res.Run.UDPRelays
	if u == nil {
		t.Fatal("run.json has no udp_relays")
	}
	if u.Unknown != 0 {
		t.Errorf("%d datagrams came from no node's listener", u.Unknown)
	}
	relayed := map[[2]string]int64{}
	for _, b := range u.Bytes {
		relayed[[2]string{b.From, b.To}] = b.Bytes
	}
	names := map[string]string{} // libp2p id → node
	homes, _ := filepath.Glob(filepath.Join(dir, results.NodesDir, "validator*"))
	for _, h := range homes {
		id, err := cometbft.LibP2PID(h)
		if err != nil {
			t.Fatal(err)
		}
		names[id] = filepath.Base(h)
	}
	last := map[string]float64{} // node, labels → the counter's last value
	peerOf := map[string][2]string{}
	ms, err := results.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	peerID := regexp.MustCompile(`peer_id=([^;]+)`)
	for _, mt := range ms {
		if !strings.HasSuffix(mt.Name, "p2p_peer_send_bytes_total") {
			continue
		}
		mm := peerID.FindStringSubmatch(mt.Labels)
		if mm == nil || names[mm[1]] == "" {
			t.Fatalf("%s: %s{%s}: no peer of the testnet", mt.Node, mt.Name, mt.Labels)
		}
		k := mt.Node + "|" + mt.Labels
		last[k] = mt.Value
		peerOf[k] = [2]string{mt.Node, names[mm[1]]}
	}
	app := map[[2]string]float64{}
	for k, v := range last {
		app[peerOf[k]] += v
	}
	for a := range names {
		for b := range names {
			pa := [2]string{names[a], names[b]}
			if a == b {
				continue
			}
			t.Logf("%s → %s: %d bytes relayed, %.0f bytes of messages sent", pa[0], pa[1], relayed[pa], app[pa])
			if relayed[pa] == 0 || app[pa] == 0 || float64(relayed[pa]) < app[pa] {
				t.Errorf("%s → %s: the relays carried %d bytes, the sender counts %.0f bytes of messages: want some, all through the relays",
					pa[0], pa[1], relayed[pa], app[pa])
			}
		}
	}
}

// TestLibP2PPartition runs TestPartition's 50/50 split (4 validators,
// 14 s of load, cut 3 s into it for 6 s) on libp2p, through the UDP
// relays, which drop the datagrams between the sides: the chain halts
// within 3 s and recovers after the heal, every transaction committed,
// and the relays counted the datagrams they dropped.
func TestLibP2PPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real libp2p testnet")
	}
	experimenttest.Proves(t)
	m := underLoad(t, 14*time.Second, func(m *manifest.Manifest) error {
		p, err := manifest.ParsePartition("50/50@3s,duration=6s")
		m.SetPartition(p)
		m.LibP2P = true
		return err
	})
	res, dir := runBuilt(t, m)
	get := checkAccounted(t, res, 1400)
	for _, id := range []string{"partition_heights", "partition_rounds", "partition_recover_s", "partition_caught_up_s"} {
		t.Logf("%s = %v", id, get(id))
	}
	checkPartition(t, dir, res, true)
	if u := res.Run.UDPRelays; u == nil || u.Severed == 0 || u.Unknown != 0 {
		t.Errorf("udp relays %+v: want datagrams dropped across the partition, none from unknown sources", u)
	}
}

// TestLibP2PDisconnect cuts validator04 of a 4-validator libp2p testnet
// off for 6 s, 3 s into 14 s of load, through its UDP relay: it commits
// nothing while cut off and is back at the tip by the end, the events
// say so as for CometBFT's p2p, every transaction is committed, and the
// relays counted the datagrams they dropped.
func TestLibP2PDisconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real libp2p testnet")
	}
	experimenttest.Proves(t)
	m := loadManifest(t, "disconnect.toml", "libp2p = true\n[perturb.validator04]\naction = \"disconnect\"\nat = \"3s\"\ndown = \"6s\"\n[load]\nrate = 100\nduration = \"14s\"\n")
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 1400)
	caughtUp(t, dir, "validator04", res.Run.LastHeight)
	stalled(t, dir, "validator04")
	want := []string{"start pid", "perturb-begin disconnect 1/1, down 6s", "cut p2p links cut",
		"restore p2p links restored", "perturb-end disconnect 1/1, down 6s", "exit exit code 0"}
	got := nodeEvents(t, dir, "validator04")
	for i := range got {
		if got[i] == "exit signal 15" {
			got[i] = "exit exit code 0"
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("validator04's events:\n got %q\nwant %q", got, want)
	}
	if u := res.Run.UDPRelays; u == nil || u.Severed == 0 || u.Unknown != 0 {
		t.Errorf("udp relays %+v: want datagrams dropped while cut off, none from unknown sources", u)
	}
}
