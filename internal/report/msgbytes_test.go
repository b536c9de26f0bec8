package report

import (
	"bytes"
	"errors"
	"image/png"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
)

// TestMsgBytesSection: the section is absent without the figures; its
// table orders the types by bytes with their shares; the check passes,
// fails above the allowed gap, or says why it was not made; without a
// committed transaction there is no table per transaction.
func TestMsgBytesSection(t *testing.T) {
	figures := func(extra map[string]float64, notes ...string) analysis.Summary {
		s := analysis.Summary{Notes: notes, Metrics: map[string]float64{"p2p_sent_bytes": 10000, "p2p_sent_bytes_per_tx": 100,
			"p2p_sent_bytes_per_tx_vote": 30, "p2p_sent_bytes_per_tx_block_part": 60, "p2p_sent_bytes_per_tx_other": 10}}
		for k, v := range extra {
			s.Metrics[k] = v
		}
		return s
	}
	for _, c := range []struct {
		name     string
		s        analysis.Summary
		want     []string
		wantNone []string
	}{
		{"absent", analysis.Summary{Metrics: map[string]float64{"committed_txs": 5}}, nil, []string{"## Bytes sent"}},
		{"checked", figures(map[string]float64{"p2p_sent_bytes_unaccounted_pct": 0.4}), []string{
			"## Bytes sent by message type",
			"The nodes sent 10,000 B to their peers in all",
			"100 B per committed transaction",
			"| BlockPart | consensus | 60 B | 60.0 % |\n| Vote | consensus | 30 B | 30.0 % |\n| other types | — | 10 B | 10.0 % |",
			"Check: the bytes by message type are every node's traffic, within 0.4 %",
		}, []string{"do not account"}},
		{"failed", figures(map[string]float64{"p2p_sent_bytes_unaccounted_pct": 3.2}), []string{
			"**The bytes by message type do not account for the nodes' traffic**: they are up to 3.2 % off",
		}, []string{"Check:"}},
		{"unchecked", figures(nil, "p2p_sent_bytes_unaccounted_pct not computed: the nodes expose no p2p_peer_send_bytes_total (v1.0 and v2.0 count bytes by message type only)"), []string{
			"Not checked against the nodes' own totals: the nodes expose no p2p_peer_send_bytes_total (v1.0 and v2.0 count bytes by message type only).",
		}, nil},
		{"nothing committed", analysis.Summary{Metrics: map[string]float64{"p2p_sent_bytes": 500}, Notes: []string{"p2p_sent_bytes_per_tx not computed: no transaction of the run was committed"}}, []string{
			"The nodes sent 500 B to their peers in all (every node's p2p messages, counted by CometBFT's p2p_message_send_bytes_total by message type): no figure per committed transaction (no transaction of the run was committed).",
		}, []string{"| message type |"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			mdWriter{w: &b}.msgBytes(c.s, &analysis.Input{})
			got := b.String()
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range c.wantNone {
				if strings.Contains(got, w) {
					t.Errorf("has %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestMsgBytesPlot: no plot without the figures, and with them one that
// decodes as a PNG of the configured size.
func TestMsgBytesPlot(t *testing.T) {
	var nd noData
	if _, err := (&plotData{nodes: []string{"a"}}).msgBytesPlot(); !errors.As(err, &nd) {
		t.Errorf("without figures: %v, want no data", err)
	}
	s := analysis.Summary{Metrics: map[string]float64{"p2p_sent_bytes_per_tx_vote": 30, "p2p_sent_bytes_per_tx_txs": 70},
		Nodes: map[string]map[string]float64{"a": {"p2p_sent_bytes_per_tx": 100, "p2p_sent_bytes_per_tx_vote": 30, "p2p_sent_bytes_per_tx_txs": 70}}}
	b, err := (&plotData{nodes: []string{"a", "b"}, s: s}).msgBytesPlot()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w, h := wantPlotSize(); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Errorf("plot is %v, want %dx%d", img.Bounds(), w, h)
	}
}
