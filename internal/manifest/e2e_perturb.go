package manifest

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// The e2e runner's perturbation timing (test/e2e/runner/perturb.go and
// main.go): after the load starts it waits 5 blocks, then perturbs one
// node at a time, nodes by name and each node's list in order;
// disconnect and pause hold the node for 10 s, kill starts it again at
// once, restart restarts it; then it waits up to 20 s for the node to
// recover and 3 s (perturb_interval on CometBFT's main) before the next.
// cometlab's perturbations are scheduled before the run, so each e2e
// perturbation gets a slot of its down time + the 20 s recovery bound +
// the gap, the first beginning e2ePerturbStart after the load starts.
const (
	// e2ePerturbStart stands for the runner's 5 blocks, at about 1 s a
	// block.
	e2ePerturbStart = 5 * time.Second
	// e2eHold is how long disconnect and pause keep the node down.
	e2eHold = 10 * time.Second
	// e2eKillDown is how long a killed node stays down: the runner starts
	// its container again at once, which takes about a second.
	e2eKillDown = time.Second
	// e2eRecover is the runner's bound on a node's recovery.
	e2eRecover = 20 * time.Second
	// e2eGap is the runner's pause between two perturbations.
	e2eGap = 3 * time.Second
	// e2eLoadTail is how long the load goes on after the last slot (the
	// runner's 5 blocks after perturbing).
	e2eLoadTail = 5 * time.Second
)

// e2eDown is how long an e2e perturbation keeps its node down.
func e2eDown(action string) time.Duration {
	switch action {
	case ActionDisconnect, ActionPause:
		return e2eHold
	case ActionKill:
		return e2eKillDown
	}
	return 0
}

// applyPerturbs schedules the perturb lists in the runner's order, one
// slot each, and makes the load long enough to hold them unless
// load_max_seconds or load_max_txs bound it. A node's list becomes one
// table per run of the same action (with count and every when repeated):
// the first named after the node, the next ones NODE-2, NODE-3, … naming
// it in node.
func (r *e2eReader) applyPerturbs() {
	gap := e2eGap
	if r.gap != "" {
		gap, _ = time.ParseDuration(r.gap)
	}
	at := e2ePerturbStart
	for _, name := range slices.Sorted(maps.Keys(r.perturbs)) {
		for i, run := range actionRuns(r.perturbs[name]) {
			action, n := run.action, run.n
			down := e2eDown(action)
			slot := down + e2eRecover + gap
			p := ManifestPerturb{Action: action, At: at.String()}
			if action != ActionRestart {
				p.Down = down.String()
			}
			if n > 1 {
				p.Count = &n
				p.Every = slot.String()
			}
			table := name
			if i > 0 {
				table = r.perturbTable(name, i+1)
				p.Node = name
			}
			if r.m.Perturb == nil {
				r.m.Perturb = map[string]ManifestPerturb{}
			}
			r.m.Perturb[table] = p
			r.from("perturb."+table, r.perturbPath[name])
			for _, k := range []string{"node", "action", "at", "down", "every", "count"} {
				r.from("perturb."+table+"."+k, r.perturbPath[name])
			}
			at += time.Duration(n) * slot
		}
	}
	if len(r.perturbs) > 0 && r.maxSeconds == 0 && r.maxTxs == 0 {
		end := at + e2eLoadTail
		if d, err := time.ParseDuration(r.m.Load.Duration); err == nil && d < end {
			r.m.Load.Duration = end.String()
		}
	}
}

// actionRun is a run of one action in a perturb list.
type actionRun struct {
	action string
	n      int
}

// actionRuns cuts a perturb list into runs of the same action, in order:
// [kill kill pause kill] is kill×2, pause, kill.
func actionRuns(l []string) []actionRun {
	var out []actionRun
	for _, a := range l {
		if k := len(out) - 1; k >= 0 && out[k].action == a {
			out[k].n++
			continue
		}
		out = append(out, actionRun{a, 1})
	}
	return out
}

// perturbTable names node's i-th perturbation table: NODE-i, or with
// more dashes when a node or a table already has that name.
func (r *e2eReader) perturbTable(node string, i int) string {
	name := fmt.Sprintf("%s-%d", node, i)
	for {
		_, isNode := r.m.Nodes[name]
		_, isTable := r.m.Perturb[name]
		if !isNode && !isTable {
			return name
		}
		name += "-"
	}
}

// applyLoad maps the e2e runner's load: every second one batch of
// load_tx_batch_size transactions (default 2) shared by
// load_tx_connections connections (default 1) per node, so the batch is the
// whole rate; cometlab sends it as burst pacing on that many connections
// to one node. load_max_txs and load_max_seconds bound the duration.
func (r *e2eReader) applyLoad() {
	batch := r.batch
	if batch == 0 {
		batch = 2
	}
	conns := r.conns
	if conns == 0 {
		conns = 1
	}
	r.m.Load.Connections = int(conns)
	r.m.Load.Rate = float64(batch) / float64(conns)
	r.m.Load.Pacing = PacingBurst
	r.from("load.rate", f("load_tx_batch_size"))
	r.from("load.connections", f("load_tx_connections"))
	switch {
	case r.maxSeconds > 0:
		r.m.Load.Duration = (time.Duration(r.maxSeconds) * time.Second).String()
		r.from("load.duration", f("load_max_seconds"))
	case r.maxTxs > 0:
		secs := math.Ceil(float64(r.maxTxs) / float64(batch))
		r.m.Load.Duration = strconv.FormatFloat(secs, 'f', 0, 64) + "s"
		r.from("load.duration", f("load_max_txs"))
	}
	r.chooseTarget()
}

// chooseTarget sends the load to the first validator (then full node) by
// name without send_no_load; the runner spreads it over all such nodes.
func (r *e2eReader) chooseTarget() {
	names := slices.Sorted(maps.Keys(r.m.Nodes))
	for _, mode := range []string{ModeValidator, ModeFull} {
		for _, name := range names {
			m := r.m.Nodes[name].Mode
			if (m == mode || m == "" && mode == ModeValidator) && !r.noLoad[name] {
				r.m.Load.Target = name
				return
			}
		}
	}
	if len(r.noLoad) > 0 {
		for _, name := range slices.Sorted(maps.Keys(r.noLoad)) {
			r.refuse(f("node", name, "send_no_load"), false, "every node has send_no_load: the e2e runner would send no load, and a cometlab run is a load")
		}
	}
}

// afterVersion fills in what depends on the release: vote extensions off
// unless the file enables them (the e2e default, where cometlab's own is
// 1), and pebbledb only where the release compiles it in.
func (r *e2eReader) afterVersion() {
	if _, set := r.app["vote_extensions_enable_height"]; !set && cometbft.HasVoteExtensions(r.m.CometBFTVersion) {
		r.app["vote_extensions_enable_height"] = int64(0)
	}
	for _, name := range slices.Sorted(maps.Keys(r.m.Nodes)) {
		n := r.m.Nodes[name]
		if n.Config["db_backend"] != "pebbledb" {
			continue
		}
		v := cmpOr(n.CometBFTVersion, r.m.CometBFTVersion)
		if l, err := cometbft.LineOf(v); err == nil && l.DBBackend != "pebbledb" {
			r.refuse(f("node", name, "database"), false, "release %s compiles pebbledb in only with a build tag, which cometlab's builds do not set (v1.0 has it)", v)
		}
	}
}
