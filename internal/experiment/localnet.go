package experiment

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/links"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
)

// netMode is how a local testnet is used; what a mode cannot honour is
// refused by checkLocal.
type netMode int

const (
	netRun    netMode = iota // one run on a testnet of its own (run, fresh sweep cells, search steps, ab)
	netShared                // runs one after another on a kept testnet (--reuse-testnet)
	netUp                    // kept up after cometlab exits (`testnet up`)
)

// netModeOf is the mode of the runs of a sweep or search.
func netModeOf(reuse bool) netMode {
	if reuse {
		return netShared
	}
	return netRun
}

// checkLocal refuses, in one place and before anything is generated, what
// a local testnet used as mode cannot honour, as bad input (exit 2).
func checkLocal(m manifest.Resolved, mode netMode) error {
	var errs []error
	switch {
	case len(m.Hosts) == 0:
	case mode == netRun: // each run deploys its own testnet on the hosts (runOnHosts)
	case mode == netShared:
		errs = append(errs, errors.New("the manifest puts its nodes on [host.*] hosts, and a shared testnet (--reuse-testnet) is a local one: "+
			"leave --reuse-testnet out (each run deploys the testnet on the hosts), or deploy once with `cometlab deploy` and load it with `cometlab load --testnet DIR`"))
	default:
		errs = append(errs, errors.New("the manifest puts its nodes on [host.*] hosts: start them with `cometlab deploy`, then load them with `cometlab load --testnet DIR`"))
	}
	switch mode {
	case netShared:
		if len(m.Perturbations) > 0 || m.Rotate != nil || m.Partition != nil {
			errs = append(errs, errors.New("perturbations, partitions and rotation need a testnet of their own: a shared testnet (--reuse-testnet) cannot be perturbed"))
		}
		if m.Evidence > 0 {
			errs = append(errs, errors.New("evidence needs a testnet of its own: committed evidence stays on the chain, and the kvstore lowers the accused validators' power"))
		}
		if m.App == cometbft.AppSDK {
			errs = append(errs, errors.New("app = \"sdk\": each run signs its sends from the genesis's accounts at sequence 0, so it needs a chain of its own: leave --reuse-testnet out"))
		}
	case netUp:
		if m.TimeScale != 1 || m.TimeScaleAuto {
			errs = append(errs, errors.New("time_scale: `testnet up` runs no load, and a load that is not scaled with the nodes measures neither them nor the model: use `cometlab run` (or a sweep, saturate, ab)"))
		}
		if m.Links == manifest.LinksRelay {
			why := "links = \"relay\""
			if m.Zones != nil {
				why = "[zones]"
			}
			errs = append(errs, fmt.Errorf("%s: the relays that emulate the links live in cometlab's process, which `testnet up` leaves: "+
				"use `cometlab run` (or a sweep) for delayed or cut links, or links = \"direct\" without zones", why))
		}
		if len(m.Perturbations) > 0 {
			errs = append(errs, errors.New("[[perturb]]: `testnet up` runs no load, so nothing would perturb its nodes: use `cometlab run`"))
		}
		if m.Partition != nil {
			errs = append(errs, errors.New("[partition]: `testnet up` runs no load, so nothing would cut its links: use `cometlab run`"))
		}
		if m.Rotate != nil {
			errs = append(errs, errors.New("[rotate]: `testnet up` runs no load, so its ephemeral nodes would never start: use `cometlab run`"))
		}
		if m.Evidence > 0 {
			errs = append(errs, errors.New("evidence: `testnet up` runs no load, so no evidence would be injected: use `cometlab run`"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return exitcode.With(errors.Join(errs...), exitcode.Usage)
}

// netOptions say how startLocal brings a testnet up.
type netOptions struct {
	mode netMode
	// dir holds the nodes' homes (dir/nodes) and logs (dir/logs).
	dir     string
	env     Env
	chainID string
	out     *Printer
	// watch, when set, observes the testnet from its start (events and
	// deaths); watchers can be swapped later with (*localNet).observe.
	watch *netWatch
}

// netWatch is what observes a testnet's nodes during one run: their
// events (events.csv) and their deaths (a problem of the run).
type netWatch struct {
	events func(results.Event)
	died   func(n *testnet.Node, st testnet.State)
}

// localNet is a local testnet brought up by startLocal: the one handle
// that run, sweep cells (fresh and shared), saturate, ab and `testnet up`
// use. Stop it with stop.
type localNet struct {
	m     manifest.Resolved
	mode  netMode
	dir   string
	spec  cometbft.Spec
	homes []cometbft.Home // their ports are held until stop
	tn    *testnet.Testnet
	links *links.Links // nil for direct links
	// nodes are the run.json records of its nodes (Home absolute);
	// endpoints the RPC endpoints of those that run consensus.
	nodes     []results.Node
	endpoints []collect.Endpoint
	version   string // the release, as the nodes report it
	runs      int    // runs made on it (shared mode)

	mu    sync.Mutex
	watch *netWatch
}

// startLocal brings the local testnet of m up under opts.dir: checks what
// the mode cannot honour, fetches the binaries, generates the homes (with
// relays when the links need them), starts the nodes and waits until every
// node advances. On error nothing is left running.
func startLocal(ctx context.Context, m manifest.Resolved, opts netOptions) (*localNet, error) {
	if err := checkLocal(m, opts.mode); err != nil {
		return nil, err
	}
	if len(m.Hosts) > 0 { // Run deploys those (runOnHosts) and never gets here
		return nil, errors.New("a testnet on [host.*] hosts cannot start locally")
	}
	spec, err := testnetSpec(ctx, m, opts.env.Fetcher, opts.chainID)
	if err != nil {
		return nil, err
	}
	return launch(ctx, m, spec, opts)
}

// launch is startLocal once the binaries are there (a run fetches them
// before its run directory exists, so that an unbuildable release leaves
// nothing on disk).
func launch(ctx context.Context, m manifest.Resolved, spec cometbft.Spec, opts netOptions) (*localNet, error) {
	ln := &localNet{m: m, mode: opts.mode, dir: opts.dir, version: m.CometBFTVersion, watch: opts.watch}
	ln.links = relays(m, &spec, opts.env.Logger)
	homes, err := cometbft.Generate(ctx, filepath.Join(opts.dir, results.NodesDir), spec)
	if err != nil {
		ln.closeLinks()
		return nil, fmt.Errorf("generate node homes: %w", err)
	}
	ln.spec, ln.homes = spec, homes
	ln.nodes, ln.endpoints = nodeRecords(m, homes)
	if a := m.AbsentNames(); len(a) > 0 {
		opts.out.Phase("testnet: %s in the genesis, never started (absent)", strings.Join(a, ", "))
	}
	homes = started(homes)
	ln.tn = testnet.New(homes, opts.env.Logger)
	if ln.links != nil {
		ln.links.SetDiallers(diallers(ln.tn))
	}
	logs := filepath.Join(opts.dir, results.LogsDir)
	opts.out.Phase("testnet: starting %d nodes (logs in %s)", len(homes)-len(ln.tn.Late()), logs)
	start := time.Now()
	to := testnet.Options{LogDir: logs, Detach: opts.mode == netUp}
	if opts.mode != netUp {
		to.Events, to.Died = ln.event, ln.died
	}
	if err := ln.tn.Start(to); err != nil {
		ln.closeLinks()
		cometbft.ReleasePorts(ln.homes)
		return nil, err
	}
	if err := waitStarted(ctx, ln.tn, scaledTimeout(opts.env.StartTimeout, defaultStartTimeout, m.TimeScale)); err != nil {
		ln.stop()
		return nil, fmt.Errorf("testnet start: %w", err)
	}
	if err := startLate(ctx, ln.tn, opts.out); err != nil {
		ln.stop()
		return nil, fmt.Errorf("testnet start: %w", err)
	}
	if t := ln.tn.Node(m.Load.Target); t != nil {
		if st, err := t.RPC.Status(ctx); err == nil {
			ln.version = reportedVersion(m, st.NodeInfo.Version)
		}
	}
	opts.out.Phase("testnet: %d nodes up and advancing after %s", len(homes), since(start))
	return ln, nil
}

// observe makes w the testnet's observer (nil: none) and returns the one
// it replaces.
func (ln *localNet) observe(w *netWatch) *netWatch {
	ln.mu.Lock()
	defer ln.mu.Unlock()
	old := ln.watch
	ln.watch = w
	return old
}

func (ln *localNet) event(e results.Event) {
	ln.mu.Lock()
	w := ln.watch
	ln.mu.Unlock()
	if w != nil && w.events != nil {
		w.events(e)
	}
}

func (ln *localNet) died(n *testnet.Node, st testnet.State) {
	ln.mu.Lock()
	w := ln.watch
	ln.mu.Unlock()
	if w != nil && w.died != nil {
		w.died(n, st)
	}
}

// down says whether the node called name cannot answer now and why
// (times since t0); a rotating node between its lives is down with
// nothing to say.
func (ln *localNet) down(name string, t0 time.Time) (bool, string) {
	n := ln.tn.Node(name)
	if n == nil {
		return false, ""
	}
	down, why := n.State().Down(t0)
	if down && n.Ephemeral {
		why = ""
	}
	return down, why
}

// alive reports whether every node process that was started still runs.
func (ln *localNet) alive() bool {
	for _, n := range ln.tn.Nodes {
		if done, _ := n.Exited(); done && !n.Ephemeral {
			return false
		}
	}
	return true
}

// stop stops the nodes (SIGTERM, then SIGKILL after 10 s), then the relays.
func (ln *localNet) stop() {
	ln.tn.Stop(10 * time.Second)
	ln.closeLinks()
	cometbft.ReleasePorts(ln.homes)
}

func (ln *localNet) closeLinks() {
	if ln.links != nil {
		ln.links.Close()
	}
}

// records are the nodes' run.json records with their homes relative to
// the run directory runDir.
func (ln *localNet) records(runDir string) []results.Node {
	nodes := make([]results.Node, len(ln.nodes))
	for i, n := range ln.nodes {
		n.Home = results.RelDir(runDir, n.Home)
		nodes[i] = n
	}
	return nodes
}
