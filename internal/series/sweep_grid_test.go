package series

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestExpandGridPerturb: a sweep varies a perturbation's down time
// (--set perturb.validator03.down=1s,5s,20s over --perturb
// validator03:kill@20s); each cell's manifest has its own.
func TestExpandGridPerturb(t *testing.T) {
	base := manifest.Default()
	node, p, err := manifest.ParsePerturb("validator03:kill@20s")
	if err != nil {
		t.Fatal(err)
	}
	base.AddPerturb(node, p)
	param := results.SweepParam{Key: "perturb.validator03.down", Values: []string{"1s", "5s", "20s"}}
	cells, err := expandGrid(base, []int{1}, []float64{200}, []results.SweepParam{param})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells {
		ps := c.manifest.Perturbations
		if len(ps) != 1 || ps[0].Node != "validator03" || ps[0].Action != manifest.ActionKill {
			t.Fatalf("cell %s: perturbations %+v", c.id, ps)
		}
		got = append(got, c.id+" "+ps[0].Down.String())
	}
	want := []string{"c1-r200-perturb.validator03.down_1s 1s", "c1-r200-perturb.validator03.down_5s 5s", "c1-r200-perturb.validator03.down_20s 20s"}
	if !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	if base.Perturb["validator03"].Down != "" {
		t.Error("the sweep changed the base manifest")
	}
}

func TestExpandGrid(t *testing.T) {
	base := manifest.Default()
	base.Config = map[string]any{"mempool": map[string]any{"size": int64(5000), "recheck": true}}
	params := []results.SweepParam{{Key: "mempool.size", Values: []string{"1000", "2000"}}, {Key: "load.size", Values: []string{"512"}}}
	cells, err := expandGrid(base, []int{1, 2}, []float64{200, 12.5}, params)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cells {
		ids = append(ids, c.id)
	}
	want := []string{
		"c1-r200-mempool.size_1000-load.size_512", "c2-r200-mempool.size_1000-load.size_512",
		"c1-r12.5-mempool.size_1000-load.size_512", "c2-r12.5-mempool.size_1000-load.size_512",
		"c1-r200-mempool.size_2000-load.size_512", "c2-r200-mempool.size_2000-load.size_512",
		"c1-r12.5-mempool.size_2000-load.size_512", "c2-r12.5-mempool.size_2000-load.size_512",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("ids\n%q\nwant\n%q", ids, want)
	}
	c := cells[5]
	if c.manifest.Load.Connections != 2 || c.manifest.Load.Rate != 200 || c.manifest.Load.Size != 512 {
		t.Errorf("load %+v", c.manifest.Load)
	}
	if v := c.manifest.Config["mempool.size"]; v != int64(2000) {
		t.Errorf("mempool.size = %#v", v)
	}
	if v := c.manifest.Config["mempool.recheck"]; v != true {
		t.Errorf("mempool.recheck lost: %#v", c.manifest.Config)
	}
	for _, n := range c.manifest.Nodes {
		if n.Config["mempool.size"] != int64(2000) {
			t.Errorf("node %s: %v", n.Name, n.Config)
		}
	}
	wantParams := map[string]string{"c": "2", "r": "200", "mempool.size": "2000", "load.size": "512"}
	if !maps.Equal(c.params, wantParams) {
		t.Errorf("params %v", c.params)
	}
	// The base manifest's tables are untouched.
	if base.Config["mempool"].(map[string]any)["size"] != int64(5000) {
		t.Error("expandGrid changed the base manifest")
	}
	// Testnet settings decide which cells share a testnet.
	if cells[0].manifest.TestnetKey() != cells[3].manifest.TestnetKey() || cells[0].manifest.TestnetKey() == cells[4].manifest.TestnetKey() {
		t.Error("testnet keys: cells of one mempool size must share one, the other size not")
	}

	// Validators; a bad value names the flag.
	cells, err = expandGrid(manifest.Default(), []int{1}, []float64{100}, []results.SweepParam{{Key: "validators", Values: []string{"3", "5"}}})
	if err != nil || len(cells) != 2 || len(cells[0].manifest.Nodes) != 3 || len(cells[1].manifest.Nodes) != 5 {
		t.Fatalf("validators: %v", err)
	}
	if ti := TestnetInfo(cells[0].manifest); ti.Validators != 3 || ti.Nodes != 3 || ti.TxSize != 1024 {
		t.Errorf("testnet info %+v", ti)
	}
	_, err = expandGrid(manifest.Default(), []int{1}, []float64{100}, []results.SweepParam{{Key: "validators", Values: []string{"0"}}})
	if err == nil || !strings.Contains(err.Error(), "--validators") {
		t.Errorf("validators=0: %v", err)
	}
}
