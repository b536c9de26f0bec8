package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// msgBytesPlot draws each node's bytes sent per committed transaction as
// one bar stacked by message type (the types some node sent, largest
// run-wide at the bottom), from summary.json's per-node figures.
func (d *plotData) msgBytesPlot() ([]byte, error) {
	types := sentTypes(d.s)
	if len(types) == 0 {
		return nil, noData("no node's bytes sent by message type per committed transaction (see Notes)")
	}
	var nodes []string
	for _, n := range d.nodes {
		if _, ok := d.s.Nodes[n]["p2p_sent_bytes_per_tx"]; ok {
			nodes = append(nodes, n)
		}
	}
	if len(nodes) == 0 {
		return nil, noData("no node's bytes sent per committed transaction")
	}
	xlabel := "node"
	if len(nodes) > maxLegendNodes {
		xlabel = fmt.Sprintf("%d nodes, in the report's order", len(nodes))
	}
	c := newChart("Bytes sent per committed transaction, by message type", xlabel, "bytes per committed tx")
	c.grid.Vertical.Color = nil
	if len(nodes) <= maxLegendNodes {
		c.p.NominalX(nodes...)
		c.p.X.Tick.Marker = nominalTicks(nodes)
	} else {
		c.p.X.Tick.Marker = nominalTicks(make([]string, len(nodes)))
	}
	plotW := vg.Length(max(d.w, DefaultPlotWidth/2)) * vg.Inch / plotDPI * 0.75
	fill := vg.Length(0.7) // of the space between nodes; past maxLegendNodes, bars touch
	if len(nodes) > maxLegendNodes {
		fill = 1
	}
	bw := plotW / vg.Length(len(nodes)) * fill
	tops := make([]float64, len(nodes))
	var below *plotter.BarChart
	for j, t := range types {
		vals := make(plotter.Values, len(nodes))
		for i, n := range nodes {
			vals[i] = d.s.Nodes[n]["p2p_sent_bytes_per_tx_"+t.ID] // 0 for a node that sent none
			tops[i] += vals[i]
		}
		bc, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return nil, err
		}
		bc.Color, bc.LineStyle.Width = typeColor(j), 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		c.p.Add(bc)
		c.add(t.Name, bc)
	}
	c.see(tops...)
	c.p.X.Min, c.p.X.Max = -0.6, float64(len(nodes))-0.4
	return c.render(d.w, d.h)
}

// typeColor is the j-th message type's colour: the node palette, then,
// past its length, the same colours lighter, so that no two types of one
// plot share a colour (v0.40 nodes send 11 types or more).
func typeColor(j int) color.NRGBA {
	return lighter(nodeColor(j), min(0.8, 0.5*float64(j/nodeColors)))
}
