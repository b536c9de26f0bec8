package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"ProposalPOL": "proposal_pol", "HaveTx": "have_tx", "Txs": "txs",
		"HasProposalBlockPart": "has_proposal_block_part", "VoteSetMaj23": "vote_set_maj23", "EvidenceList": "evidence_list"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// msgRows returns metrics.csv rows of node n0: each series' samples at
// scrapes 1, 2, 3 s (nil values: not yet exposed at that scrape).
func msgRows(series map[string][3]float64) []results.Metric {
	var out []results.Metric
	keys := make([]string, 0, len(series))
	for k := range series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		name, labels, _ := strings.Cut(k, "|")
		for i, v := range series[k] {
			if v < 0 {
				continue // not exposed yet
			}
			out = append(out, results.Metric{Time: int64(i+1) * 1e9, Node: "n0", Name: "cometbft_" + name, Labels: labels, Value: v})
		}
	}
	return out
}

func TestMsgBytesFigures(t *testing.T) {
	const msg, peer = "p2p_message_send_bytes_total|message_type=", "p2p_peer_send_bytes_total|chID=0x20;peer_id="
	cases := []struct {
		name      string
		series    map[string][3]float64
		committed float64
		want      map[string]float64 // node n0's figures
		absent    []string
		anomaly   string
		note      string
	}{
		{
			name: "v0.40: types sum to the peers' total",
			series: map[string][3]float64{
				msg + "consensus_BlockPart": {100, 600, 1100}, // +1000
				msg + "mempool_Txs":         {-1, 300, 500},   // appeared later: 500 from 0
				msg + "consensus_Vote":      {50, 50, 80},     // +30
				peer + "a":                  {80, 500, 900},   // +820
				peer + "b":                  {70, -1, 780},    // +710
				"p2p_peers|":                {2, 2, 2},
			},
			committed: 10,
			want: map[string]float64{"p2p_sent_bytes": 1530, "p2p_sent_bytes_per_tx": 153, "p2p_sent_bytes_per_tx_block_part": 100,
				"p2p_sent_bytes_per_tx_txs": 50, "p2p_sent_bytes_per_tx_vote": 3, "p2p_sent_bytes_unaccounted_pct": 0},
			absent: []string{"p2p_sent_bytes_per_tx_other", "p2p_sent_bytes_per_tx_have_tx"},
			note:   "not computed for the 22 message types no node sent",
		},
		{
			name: "types miss part of the traffic: the check fails",
			series: map[string][3]float64{
				msg + "consensus_BlockPart": {0, 500, 1000},
				peer + "a":                  {0, 600, 1200},
			},
			committed: 4,
			want:      map[string]float64{"p2p_sent_bytes": 1000, "p2p_sent_bytes_per_tx": 250, "p2p_sent_bytes_unaccounted_pct": 200.0 / 1200 * 100},
			anomaly:   "do not account for its traffic",
		},
		{
			name: "v2.0: DOG types, no per-peer counter, an unknown type",
			series: map[string][3]float64{
				msg + "v1_Txs":      {0, 100, 200},
				msg + "v1_HaveTx":   {0, 10, 20},
				msg + "v9_Gossip":   {0, 5, 40},
				"p2p_peers|chain=x": {3, 3, 3},
			},
			committed: 2,
			want: map[string]float64{"p2p_sent_bytes": 260, "p2p_sent_bytes_per_tx_txs": 100, "p2p_sent_bytes_per_tx_have_tx": 10,
				"p2p_sent_bytes_per_tx_other": 20},
			absent: []string{"p2p_sent_bytes_unaccounted_pct"},
			note:   "does not know, counted as other: Gossip",
		},
		{
			name:      "nothing committed: bytes without per-tx figures",
			series:    map[string][3]float64{msg + "consensus_Vote": {0, 10, 20}, peer + "a": {0, 10, 20}},
			committed: 0,
			want:      map[string]float64{"p2p_sent_bytes": 20, "p2p_sent_bytes_unaccounted_pct": 0},
			absent:    []string{"p2p_sent_bytes_per_tx", "p2p_sent_bytes_per_tx_vote"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Summary{Metrics: map[string]float64{}}
			b := &builder{s: &s}
			msgBytesFigures(NewSeriesSet(msgRows(c.series)), b, []string{"n0"}, c.committed)
			for id, want := range c.want {
				got, ok := s.Nodes["n0"][id]
				if !ok || math.Abs(got-want) > 1e-9 {
					t.Errorf("n0 %s = %v (%v), want %v", id, got, ok, want)
				}
				if run, ok := s.Metrics[id]; !ok || math.Abs(run-want) > 1e-9 {
					t.Errorf("run-wide %s = %v (%v), want %v (one node)", id, run, ok, want)
				}
			}
			for _, id := range c.absent {
				if v, ok := s.Metrics[id]; ok {
					t.Errorf("%s = %v, want absent", id, v)
				}
			}
			hasAnomaly := slices.ContainsFunc(s.Anomalies, func(a string) bool { return c.anomaly != "" && strings.Contains(a, c.anomaly) })
			if (c.anomaly != "") != hasAnomaly || (c.anomaly == "" && len(s.Anomalies) > 0) {
				t.Errorf("anomalies %q, want one containing %q", s.Anomalies, c.anomaly)
			}
			if c.note != "" && !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, c.note) }) {
				t.Errorf("notes %q, want one containing %q", s.Notes, c.note)
			}
		})
	}
}

func TestMsgBytesAbsent(t *testing.T) {
	s := Summary{Metrics: map[string]float64{}}
	b := &builder{s: &s}
	msgBytesFigures(NewSeriesSet(msgRows(map[string][3]float64{"p2p_peers|": {1, 1, 1}})), b, []string{"n0"}, 5)
	if len(s.Metrics) != 0 || len(s.Notes) != 1 {
		t.Errorf("metrics %v notes %q: want none and one note", s.Metrics, s.Notes)
	}
}
