package experiment

import (
	"cmp"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/links"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// zoneLinks is what setZoneDelays sets: *links.Links.
type zoneLinks interface {
	SetJitter(frac float64)
	SetDelay(from, to string, d time.Duration)
	SetBandwidth(from, to string, bytesPerSec float64)
}

// setZoneDelays gives lk the delays of m's zones: for every ordered pair
// of nodes in different zones, the matrix's one-way delay from the
// sender's zone to the receiver's, the zones' jitter and the bandwidth
// of the pair of zones ([zones.bandwidth], else bandwidth_mbps; Mbit/s,
// as bytes/s). Nodes without a zone (ephemeral ones) get neither.
func setZoneDelays(m manifest.Resolved, lk zoneLinks) {
	if m.Zones == nil {
		return
	}
	lk.SetJitter(m.Zones.Jitter)
	bw := m.Zones.Bandwidth()
	for _, a := range m.Nodes {
		for _, b := range m.Nodes {
			if a.Name == b.Name || a.Zone == "" || b.Zone == "" {
				continue
			}
			if d, ok := m.Zones.Matrix.Delay(a.Zone, b.Zone); ok && d > 0 {
				lk.SetDelay(a.Name, b.Name, d)
			}
			if mbps := bw.Between(a.Zone, b.Zone); mbps > 0 {
				lk.SetBandwidth(a.Name, b.Name, mbps*1e6/8)
			}
		}
	}
}

// zonesRecord is run.json's record of m's zones: the matrix's source, and
// its rows and columns of the zones the nodes are in (and those of the
// bandwidths when pairs of zones have their own); nil without zones.
func zonesRecord(m manifest.Resolved) *results.Zones {
	if m.Zones == nil {
		return nil
	}
	z := &results.Zones{Matrix: m.Zones.Source, Jitter: m.Zones.Jitter, BandwidthMbps: m.Zones.BandwidthMbps}
	for _, zone := range m.Zones.Matrix.Zones {
		if slices.ContainsFunc(m.Nodes, func(n manifest.Node) bool { return n.Zone == zone }) {
			z.Zones = append(z.Zones, zone)
		}
	}
	for _, a := range z.Zones {
		row := make([]float64, len(z.Zones))
		for j, b := range z.Zones {
			d, _ := m.Zones.Matrix.Delay(a, b)
			row[j] = ms(d)
		}
		z.DelayMs = append(z.DelayMs, row)
	}
	if len(m.Zones.BandwidthPairs) > 0 {
		bw := m.Zones.Bandwidth()
		for _, a := range z.Zones {
			row := make([]float64, len(z.Zones))
			for j, b := range z.Zones {
				row[j] = bw.Between(a, b)
			}
			z.LinkMbps = append(z.LinkMbps, row)
		}
	}
	return z
}

// roundTripRecords sums the relays' measured round trips up per ordered
// pair of nodes, in order of From, then To.
func roundTripRecords(rtts []links.RoundTrip) []results.RoundTrip {
	by := map[[2]string][]time.Duration{}
	for _, rt := range rtts {
		k := [2]string{rt.From, rt.To}
		by[k] = append(by[k], rt.RTT)
	}
	var out []results.RoundTrip
	for k, ds := range by {
		slices.Sort(ds)
		med := ds[len(ds)/2]
		if len(ds)%2 == 0 {
			med = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
		}
		out = append(out, results.RoundTrip{From: k[0], To: k[1], N: len(ds),
			MinMs: ms(ds[0]), MedianMs: ms(med)})
	}
	slices.SortFunc(out, func(a, b results.RoundTrip) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// recordRoundTrips puts the round trips ln's relays measured so far into
// the run's zones (when it has zones and relays, and they measured any):
// its p2p connections opened when it started, perhaps in an earlier run.
func recordRoundTrips(rd *runDir, ln *localNet) {
	if ln.links == nil {
		return
	}
	if rtts := roundTripRecords(ln.links.RoundTrips()); len(rtts) > 0 {
		rd.set(func(r *results.Run) {
			if r.Zones != nil {
				r.Zones.RoundTrips = rtts
			}
		})
	}
}

// recordUDPRelays puts what ln's UDP relays carried and dropped into the
// run (a libp2p testnet with relayed links).
func recordUDPRelays(rd *runDir, ln *localNet) {
	if ln.links == nil || !ln.m.LibP2P {
		return
	}
	st := ln.links.UDPStats()
	rec := &results.UDPRelays{Unknown: st.Unknown, Severed: st.Severed, Queued: st.Queued}
	for k, b := range st.Bytes {
		rec.Bytes = append(rec.Bytes, results.PairBytes{From: k[0], To: k[1], Bytes: b})
	}
	slices.SortFunc(rec.Bytes, func(a, b results.PairBytes) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	rd.set(func(r *results.Run) { r.UDPRelays = rec })
}
