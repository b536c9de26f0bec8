package series

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// gridCell is one cell of a sweep grid before it runs: its id, its
// parameters and its resolved manifest.
type gridCell struct {
	id       string
	params   map[string]string
	manifest manifest.Resolved
}

// cellID is a cell's stable, readable id: "c2-r400", then "-KEY_VALUE"
// for each other parameter in grid order, characters other than letters,
// digits, '.' and '_' replaced by '_'.
func cellID(c int, r float64, params []results.SweepParam, values map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "c%d-r%s", c, strconv.FormatFloat(r, 'f', -1, 64))
	for _, p := range params {
		b.WriteString("-" + idSafe(p.Key) + "_" + idSafe(values[p.Key]))
	}
	return b.String()
}

func idSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
			return r
		}
		return '_'
	}, s)
}

// expandGrid returns the grid's cells (once per id, without repeats) in run
// order: each combination of params in the order given, then r, then c.
// Each cell's manifest is base with the cell's settings applied.
func expandGrid(base manifest.Manifest, conns []int, rates []float64, params []results.SweepParam) ([]gridCell, error) {
	var cells []gridCell
	var errs []error
	var walk func(i int, m manifest.Manifest, values map[string]string)
	walk = func(i int, m manifest.Manifest, values map[string]string) {
		if i < len(params) {
			for _, v := range params[i].Values {
				mm := m
				if err := mm.Set(params[i].Key, v); err != nil {
					errs = append(errs, fmt.Errorf("--set %s=%s: %w", params[i].Key, v, err))
					continue
				}
				vv := maps.Clone(values)
				vv[params[i].Key] = v
				walk(i+1, mm, vv)
			}
			return
		}
		for _, r := range rates {
			for _, c := range conns {
				mm := m
				if err := mm.Apply(manifest.Overrides{Connections: &c, Rate: &r}); err != nil {
					errs = append(errs, err)
					continue
				}
				res, err := mm.Resolve()
				if err != nil {
					errs = append(errs, fmt.Errorf("cell %s: %w", cellID(c, r, params, values), err))
					continue
				}
				p := maps.Clone(values)
				p["c"] = strconv.Itoa(c)
				p["r"] = strconv.FormatFloat(r, 'f', -1, 64)
				cells = append(cells, gridCell{id: cellID(c, r, params, values), params: p, manifest: res})
			}
		}
	}
	walk(0, base, map[string]string{})
	if len(errs) > 0 {
		return nil, joinUnique(errs)
	}
	return cells, nil
}

// TestnetInfo describes r for reports.
func TestnetInfo(r manifest.Resolved) results.TestnetInfo {
	ti := results.TestnetInfo{Name: r.Name, CometBFTVersion: r.CometBFTVersion, App: r.App, Nodes: len(r.Nodes),
		TxSize: r.Load.Size, Pacing: r.Load.Pacing}
	switch {
	case r.CometBFTSource != nil: // a tree runs as the release it derives from: name the code
		ti.CometBFTVersion = r.CometBFTSource.String()
	case ti.CometBFTVersion == "":
		ti.CometBFTVersion = "binary " + r.CometBFTBinary
	}
	for _, n := range r.Nodes {
		if n.Mode == manifest.ModeValidator {
			ti.Validators++
		}
	}
	return ti
}

// joinUnique joins errors, dropping repeats of the same message (a bad
// value repeated in every cell).
func joinUnique(errs []error) error {
	seen := map[string]bool{}
	var msgs []string
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			msgs = append(msgs, e.Error())
		}
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}
