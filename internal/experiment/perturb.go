package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
)

// Perturbation step operations. A kill, pause, disconnect or wipe has a
// begin step (the node goes down) and an end step down later (it is back);
// a restart is one step, since it is back as soon as it has restarted.
const (
	opBegin   = "begin"
	opEnd     = "end"
	opRestart = "restart" // a restart or an upgrade
)

// step is one thing the executor does to a node.
type step struct {
	// At is when, after the load starts, or after the target reached
	// Height when Height > 0.
	At     time.Duration
	Height int64
	Node   string
	Op     string // opBegin, opEnd or opRestart
	Action string // manifest.Action*
	I, N   int    // occurrence i of n, from 1
	Down   time.Duration
	// From and To are an upgrade's releases.
	From, To string
	// Groups are a partition's groups (Node "", Action
	// analysis.PartitionAction), Split its split or power in words.
	Groups [][]string
	Split  string
}

// Detail is the step's perturbation in words, the Detail of its
// perturb-begin and perturb-end events: "kill 1/2, down 5s",
// "restart 1/1", "wipe 1/1" (a wipe without down time), "upgrade 1/1,
// v1.0.0 → v1.0.1".
func (s step) Detail() string {
	if s.Action == analysis.PartitionAction {
		groups := make([]string, len(s.Groups))
		for i, g := range s.Groups {
			groups[i] = strings.Join(g, " ")
		}
		return fmt.Sprintf("%s %s, down %s: %s", s.Action, s.Split, s.Down, strings.Join(groups, " | "))
	}
	d := fmt.Sprintf("%s %d/%d", s.Action, s.I, s.N)
	if s.Down > 0 {
		d += ", down " + s.Down.String()
	}
	if s.To != "" {
		d += ", " + s.From + " → " + s.To
	}
	return d
}

func (s step) String() string {
	when := s.At.String()
	if s.Height > 0 {
		when = fmt.Sprintf("h%d+%s", s.Height, s.At)
	}
	node := s.Node
	if node == "" {
		node = "(testnet)"
	}
	return fmt.Sprintf("%s %s %s %s", when, node, s.Op, s.Detail())
}

// schedule turns the perturbations into the timeline of steps the
// executor runs: occurrence i (from 0) of a perturbation begins at
// At + i×Every and, unless it is a restart or an upgrade, ends Down
// later. Steps are
// ordered by height trigger, time, node and occurrence, begin before end,
// so that a node's own steps come in the order they are run.
func schedule(ps []manifest.Perturbation) []step {
	var out []step
	for _, p := range ps {
		for i := range p.Count {
			s := step{At: p.At + time.Duration(i)*p.Every, Height: p.Height, Node: p.Node, Action: p.Action,
				I: i + 1, N: p.Count, Down: p.Down, From: p.From, To: p.UpgradeTarget()}
			if p.Action == manifest.ActionRestart || p.Action == manifest.ActionUpgrade {
				s.Op = opRestart
				out = append(out, s)
				continue
			}
			s.Op = opBegin
			out = append(out, s)
			s.Op, s.At = opEnd, s.At+p.Down
			out = append(out, s)
		}
	}
	rank := map[string]int{opBegin: 0, opRestart: 1, opEnd: 2}
	slices.SortStableFunc(out, func(a, b step) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.At, b.At), strings.Compare(a.Node, b.Node),
			cmp.Compare(a.I, b.I), cmp.Compare(rank[a.Op], rank[b.Op]))
	})
	return out
}

// partitionSteps are the begin and end steps of the run's partition (none
// without one): node "", so that analysis reads it as the testnet's, not
// a node's. Its split in words is the manifest's split and the groups'
// voting power, which analysis reads to know whether a side held more
// than 2/3 of it ("50/50 power 2/2", "power 3/2" for named groups, or
// "power 20/30 of 40" when a twin's validator's power is in two groups).
func partitionSteps(p *manifest.Partition) []step {
	if p == nil {
		return nil
	}
	split := strings.TrimSpace(p.Split + " power " + p.PowerText())
	s := step{At: p.At, Action: analysis.PartitionAction, I: 1, N: 1, Down: p.Duration, Groups: p.Groups, Split: split, Op: opBegin}
	end := s
	end.Op, end.At = opEnd, p.At+p.Duration
	return []step{s, end}
}

// linkCutter cuts and restores a node's p2p links, and partitions the
// testnet (package links).
type linkCutter interface {
	Cut(node string) error
	Restore(node string) error
	Partition(groups [][]string) error
	Heal()
}

// executor runs a timeline of perturbation steps on a testnet during the
// load phase, one goroutine a node, and writes their events.
type executor struct {
	steps  []step
	tn     *testnet.Testnet
	links  linkCutter // nil when the testnet has no relays
	events func(results.Event)
	// upgrades are the binaries of the releases upgrades start nodes with.
	upgrades map[string]string
	target   string // the load's target, whose height triggers at a height
	// height returns the target's latest height, for height triggers.
	height func() int64

	wg      sync.WaitGroup
	ended   chan struct{} // closed when the load has ended: nothing more begins
	mu      sync.Mutex
	errs    []error
	skipped []string // steps that never began because the load ended first
}

// start runs the steps from t0 (the load start) until they are all done;
// ctx ending skips what is left to take nodes down but still brings back
// every node that is down.
func (x *executor) start(ctx context.Context, t0 time.Time, latest interface{ Latest(string) int64 }) {
	if x.height == nil && latest != nil {
		x.height = func() int64 { return latest.Latest(x.target) }
	}
	x.ended = make(chan struct{})
	byNode := map[string][]step{}
	for _, s := range x.steps {
		byNode[s.Node] = append(byNode[s.Node], s)
	}
	for node, steps := range byNode {
		x.wg.Go(func() { x.runNode(ctx, t0, node, steps) })
	}
}

// wait, called when the load has ended, lets nothing more begin, waits
// until every node that is down is back and returns the steps' errors.
func (x *executor) wait(out *Printer) error {
	if x.ended == nil {
		return nil // never started
	}
	close(x.ended)
	if len(x.steps) > 0 {
		out.Status("perturbations: waiting for the last to end")
	}
	x.wg.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.skipped) > 0 {
		slices.Sort(x.skipped)
		out.Phase("perturbations: the load ended before these began: %s", strings.Join(x.skipped, "; "))
	}
	return errors.Join(x.errs...)
}

func (x *executor) runNode(ctx context.Context, t0 time.Time, node string, steps []step) {
	var n *testnet.Node // nil for the partition, the testnet's
	if node != "" {
		if n = x.tn.Node(node); n == nil {
			x.fail(fmt.Errorf("no node %s", node))
			return
		}
	}
	down := false   // the node is down from a begin step not yet ended
	failed := false // the last begin step failed: its end has nothing to do
	heightAt := map[int64]time.Time{}
	for i, s := range steps {
		if s.Op == opEnd && failed {
			failed = false
			continue
		}
		// Until the next step is due, a step that takes the node down waits
		// for the end of the load or an interrupt too; one that brings it
		// back only for an interrupt.
		wctx, cancel := context.WithCancel(ctx)
		if !down {
			go func() {
				select {
				case <-x.ended:
					cancel()
				case <-wctx.Done():
				}
			}()
		}
		start := t0
		if s.Height > 0 {
			if _, ok := heightAt[s.Height]; !ok {
				heightAt[s.Height] = x.waitHeight(wctx, s.Height)
			}
			start = heightAt[s.Height]
		}
		sleepUntil(wctx, start.Add(s.At))
		cancel()
		if !down && (ctx.Err() != nil || x.isEnded()) {
			x.skip(steps[i:])
			return // interrupted or the load ended: take nothing else down
		}
		if err := x.do(n, s); err != nil {
			x.fail(err)
			failed = s.Op == opBegin // it did not go down: skip its end
			down = false
			continue
		}
		down = s.Op == opBegin
	}
}

// waitHeight waits until the target has committed h (or ctx ends) and
// returns when.
func (x *executor) waitHeight(ctx context.Context, h int64) time.Time {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for x.height() < h {
		select {
		case <-ctx.Done():
			return time.Now()
		case <-t.C:
		}
	}
	return time.Now()
}

func sleepUntil(ctx context.Context, at time.Time) {
	d := time.Until(at)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// restartGrace is how long a restart or wipe waits for SIGTERM before
// SIGKILL.
const restartGrace = 10 * time.Second

// do runs one step and writes its perturb-begin or perturb-end event.
func (x *executor) do(n *testnet.Node, s step) error {
	ev := func(kind string) {
		x.events(results.Event{At: time.Now().UnixNano(), Node: s.Node, Kind: kind, Detail: s.Detail()})
	}
	var err error
	switch s.Op {
	case opRestart:
		ev(results.EventPerturbBegin)
		if err = n.Terminate(restartGrace); err == nil && s.Action == manifest.ActionUpgrade {
			err = n.Upgrade(s.To, x.upgrades[s.To])
		}
		if err == nil {
			err = n.Restart()
		}
		if err == nil {
			ev(results.EventPerturbEnd)
			if s.Action == manifest.ActionUpgrade {
				x.reportVersion(n)
			}
		}
	case opBegin:
		ev(results.EventPerturbBegin)
		err = x.begin(n, s)
	case opEnd:
		if err = x.end(n, s.Action); err == nil {
			ev(results.EventPerturbEnd)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	return nil
}

func (x *executor) begin(n *testnet.Node, s step) error {
	switch s.Action {
	case analysis.PartitionAction:
		if x.links == nil {
			return errors.New("a partition needs the p2p relays (links = \"relay\")")
		}
		if err := x.links.Partition(s.Groups); err != nil {
			return err
		}
		x.events(results.Event{At: time.Now().UnixNano(), Kind: results.EventCut, Detail: "p2p links between the groups cut"})
		return nil
	case manifest.ActionKill:
		return n.Kill()
	case manifest.ActionPause:
		return n.Pause()
	case manifest.ActionWipe:
		if err := n.Terminate(restartGrace); err != nil {
			return err
		}
		return n.Wipe()
	case manifest.ActionDisconnect:
		if x.links == nil {
			return errors.New("disconnect needs the p2p relays (links = \"relay\")")
		}
		if err := x.links.Cut(n.Name); err != nil {
			return err
		}
		x.events(results.Event{At: time.Now().UnixNano(), Node: n.Name, Kind: results.EventCut, Detail: "p2p links cut"})
		return nil
	}
	return fmt.Errorf("unknown action %q", s.Action)
}

func (x *executor) end(n *testnet.Node, action string) error {
	switch action {
	case analysis.PartitionAction:
		x.links.Heal()
		x.events(results.Event{At: time.Now().UnixNano(), Kind: results.EventRestore, Detail: "p2p links between the groups healed"})
		return nil
	case manifest.ActionKill, manifest.ActionWipe:
		return n.Restart()
	case manifest.ActionPause:
		return n.Resume()
	case manifest.ActionDisconnect:
		if err := x.links.Restore(n.Name); err != nil {
			return err
		}
		x.events(results.Event{At: time.Now().UnixNano(), Node: n.Name, Kind: results.EventRestore, Detail: "p2p links restored"})
		return nil
	}
	return fmt.Errorf("unknown action %q", action)
}

// versionWait bounds how long an upgraded node's RPC is waited for.
const versionWait = 20 * time.Second

// reportVersion writes the version event of an upgraded node: what its
// /status node_info.version says once its RPC answers (within
// versionWait), or that it did not answer.
func (x *executor) reportVersion(n *testnet.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), versionWait)
	defer cancel()
	detail := fmt.Sprintf("no /status answer within %s", versionWait)
	for ctx.Err() == nil {
		if st, err := n.RPC.Status(ctx); err == nil {
			detail = "node_info.version " + st.NodeInfo.Version
			break
		}
		sleepUntil(ctx, time.Now().Add(200*time.Millisecond))
	}
	x.events(results.Event{At: time.Now().UnixNano(), Node: n.Name, Kind: results.EventVersion, Detail: detail})
}

func (x *executor) isEnded() bool {
	select {
	case <-x.ended:
		return true
	default:
		return false
	}
}

// skip records the steps that never began.
func (x *executor) skip(steps []step) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, s := range steps {
		if s.Op != opEnd {
			x.skipped = append(x.skipped, strings.TrimSpace(s.Node+" "+s.Detail()))
		}
	}
}

func (x *executor) fail(err error) {
	x.mu.Lock()
	x.errs = append(x.errs, err)
	x.mu.Unlock()
}
