package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// The per-node tables: one row per node up to manyNodes nodes; past it a
// summary over the nodes in the section, and the full table in the
// appendix "Per-node figures" (and, for every run, in node_figures.csv).

// nodeTableSpec is one per-node table: the section it belongs to, its
// rows and its figures.
type nodeTableSpec struct {
	section string
	nodes   []string
	ids     []string
}

// nodeTable writes the per-node figures ids of nodes: one row per node
// (columns titled by the dictionary, "—" where a node has none), or, in a
// full report of a run past manyNodes nodes (its rows may add the nodes'
// app processes), their summary, the table kept for the appendix;
// nothing when no node has any.
func (m mdWriter) nodeTable(s analysis.Summary, section string, nodes []string, ids []string) {
	if m.many && m.full != nil {
		if m.nodeSummary(s, nodes, ids) {
			*m.full = append(*m.full, nodeTableSpec{section: section, nodes: nodes, ids: ids})
		}
		return
	}
	m.fullNodeTable(s, nodes, ids)
}

// fullNodeTable writes one row per node of the figures ids.
func (m mdWriter) fullNodeTable(s analysis.Summary, nodes []string, ids []string) {
	any := false
	var rows [][]string
	for _, n := range nodes {
		row := []string{n}
		for _, id := range ids {
			v, ok := s.Nodes[n][id]
			if !ok {
				row = append(row, "—")
				continue
			}
			any = true
			row = append(row, formatWithUnit(metricFor(id), v))
		}
		rows = append(rows, row)
	}
	if !any {
		return
	}
	head := []string{"node"}
	for _, id := range ids {
		head = append(head, metricFor(id).Title)
	}
	m.table(head, "l"+strings.Repeat("r", len(ids)), rows)
}

// nodeSummary writes, for each figure of ids, its quantiles over the
// nodes that have it and the worstNodes worst nodes (by the dictionary's
// better direction; the largest for a neutral figure), and reports
// whether any node had any.
func (m mdWriter) nodeSummary(s analysis.Summary, nodes []string, ids []string) bool {
	var rows [][]string
	for _, id := range ids {
		if row, ok := summaryRow(s, nodes, id); ok {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return false
	}
	m.f("Over the %d nodes: quantiles of each node's figure, and the nodes worse than the median node, worst first "+
		"(the full table, one row per node, is in the appendix *Per-node figures* and in %s):\n\n", len(nodes), results.NodeFiguresFile)
	m.table([]string{"figure", "nodes", "min", "p25", "median", "p75", "max", fmt.Sprintf("worst %d", worstNodes)}, "lrrrrrrl", rows)
	return true
}

// summaryRow returns the summary row of the figure id over nodes, and
// whether any node has it.
func summaryRow(s analysis.Summary, nodes []string, id string) ([]string, bool) {
	d := metricFor(id)
	vals := make([][]float64, len(nodes))
	var have []float64
	for i, n := range nodes {
		vals[i] = []float64{math.NaN()}
		if v, ok := s.Nodes[n][id]; ok {
			vals[i][0] = v
			have = append(have, v)
		}
	}
	if len(have) == 0 {
		return nil, false
	}
	slices.Sort(have)
	row := []string{d.Title, strconv.Itoa(len(have))}
	for _, p := range []float64{0, 25, 50, 75, 100} {
		row = append(row, formatWithUnit(d, stats.Percentile(have, p)))
	}
	var worst []string
	for _, i := range worstOf(vals, worstNodes, d.Better == analysis.HigherIsBetter) {
		worst = append(worst, nodes[i]+" "+formatWithUnit(d, vals[i][0]))
	}
	if len(worst) == 0 {
		worst = []string{"— (none worse than the median)"}
	}
	return append(row, strings.Join(worst, ", ")), true
}

// nodeAppendix writes the full per-node tables the sections summarised.
func (m mdWriter) nodeAppendix(s analysis.Summary) {
	if m.full == nil || len(*m.full) == 0 {
		return
	}
	m.f("## Appendix: Per-node figures\n\n")
	m.f("One row per node of the tables summarised in the sections above (also in %s).\n\n", results.NodeFiguresFile)
	for _, t := range *m.full {
		m.f("### %s\n\n", t.section)
		m.fullNodeTable(s, t.nodes, t.ids)
	}
}

// nodeFiguresCSV returns node_figures.csv: a header "node" and every
// per-node figure of the dictionary that some node has (dictionary
// order), then one row per node (nodes first in their order, then any
// other node of the summary, sorted) with each figure as Go formats a
// float64 ('g', shortest), empty where the node has none; nil when no
// node has a figure.
func nodeFiguresCSV(s analysis.Summary, nodes []string) ([]byte, error) {
	if len(s.Nodes) == 0 {
		return nil, nil
	}
	var ids []string
	for _, d := range analysis.Dictionary() {
		for _, figs := range s.Nodes {
			if _, ok := figs[d.ID]; ok {
				ids = append(ids, d.ID)
				break
			}
		}
	}
	var extra []string
	for n := range s.Nodes {
		if !slices.Contains(nodes, n) {
			extra = append(extra, n)
		}
	}
	slices.Sort(extra)
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(append([]string{"node"}, ids...))
	for _, n := range append(slices.Clone(nodes), extra...) {
		figs, ok := s.Nodes[n]
		if !ok {
			continue
		}
		row := []string{n}
		for _, id := range ids {
			cell := ""
			if v, ok := figs[id]; ok {
				cell = strconv.FormatFloat(v, 'g', -1, 64)
			}
			row = append(row, cell)
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// writeNodeFigures writes dir's node_figures.csv, or removes it when no
// node has a figure.
func writeNodeFigures(dir string, s analysis.Summary, nodes []string) error {
	b, err := nodeFiguresCSV(s, nodes)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, results.NodeFiguresFile)
	if b == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := results.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("write %s: %w", results.NodeFiguresFile, err)
	}
	return nil
}
