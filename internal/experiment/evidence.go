package experiment

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// evidenceGap spaces the injected evidences.
const evidenceGap = 500 * time.Millisecond

// injector sends the manifest's duplicate-vote evidence to the load's
// target, as CometBFT's e2e runner does for evidence = N.
type injector struct {
	n       int
	target  *rpc.Client
	via     string   // the target's name
	version string   // the target's release (its line names the JSON's keys)
	accused []string // validators, absent ones first, then the others in manifest order
	homes   string   // the directory of the node homes (their keys)
	events  func(results.Event)
	scale   float64 // the time scale: evidenceGap ×scale apart
}

// newInjector is the injector of m's evidence on the testnet ln.
func newInjector(m manifest.Resolved, ln *localNet, target *rpc.Client, events func(results.Event)) *injector {
	x := &injector{n: m.Evidence, target: target, via: m.Load.Target, homes: filepath.Join(ln.dir, results.NodesDir), events: events,
		scale: m.TimeScale}
	var present []string
	for _, n := range m.Nodes {
		switch {
		case n.Mode != manifest.ModeValidator:
		case n.Absent:
			x.accused = append(x.accused, n.Name)
		default:
			present = append(present, n.Name)
		}
		if n.Name == m.Load.Target {
			x.version = cmp.Or(n.Version, m.CometBFTVersion) // a source tree's: the release it derives from
		}
	}
	x.accused = append(x.accused, present...)
	return x
}

// run injects the evidences: all at the latest committed height H (the
// k-th round of accusations at H − k), each accusing the next validator
// of the set at that height, evidenceGap apart; each sent one is an
// evidence event. It stops at the first error.
func (x *injector) run(ctx context.Context) error {
	line, err := cometbft.LineOf(x.version) // the manifest refuses a cometbft_binary
	if err != nil {
		return fmt.Errorf("evidence: the target's release: %w", err)
	}
	st, err := x.target.Status(ctx)
	if err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	top, chainID := int64(st.SyncInfo.LatestBlockHeight), st.NodeInfo.Network
	for i := range x.n {
		h := top - int64(i/len(x.accused))
		if h < 1 {
			return fmt.Errorf("evidence: %d evidences need %d heights, the chain has %d", x.n, (x.n+len(x.accused)-1)/len(x.accused), top)
		}
		name := x.accused[i%len(x.accused)]
		if err := x.inject(ctx, chainID, name, h, line.EvidenceSnakeKeys); err != nil {
			return fmt.Errorf("evidence against %s at height %d: %w", name, h, err)
		}
		x.events(results.Event{At: time.Now().UnixNano(), Node: name, Kind: results.EventEvidence, Detail: analysis.EvidenceDetail(h, x.via)})
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(scaledTimeout(evidenceGap, 0, x.scale)):
		}
	}
	return nil
}

// inject sends one piece of evidence: two precommits for random blocks
// at height h signed with name's key, with the power and time the node
// checks them against.
func (x *injector) inject(ctx context.Context, chainID, name string, h int64, snake bool) error {
	key, err := cometbft.ReadValidatorKey(filepath.Join(x.homes, name))
	if err != nil {
		return err
	}
	set, err := x.target.ValidatorSet(ctx, h)
	if err != nil {
		return err
	}
	addr := strings.ToUpper(fmt.Sprintf("%X", key.Address))
	idx := slices.IndexFunc(set, func(v rpc.Validator) bool { return strings.EqualFold(v.Address, addr) })
	if idx < 0 {
		return fmt.Errorf("%s (%s) is not in the validator set at height %d", name, addr, h)
	}
	var total int64
	for _, v := range set {
		total += v.Power
	}
	blk, err := x.target.Block(ctx, h)
	if err != nil {
		return err
	}
	dv := &rpc.DuplicateVote{ChainID: chainID, Height: h, Time: blk.Time, Address: key.Address, Index: int32(idx),
		Power: set[idx].Power, Total: total, A: randomBlockID(), B: randomBlockID(), Key: rpc.Key{Type: key.Type, Priv: key.Priv}, SnakeCase: snake}
	_, err = x.target.BroadcastEvidence(ctx, dv)
	return err
}

// randomBlockID is a block id of random hashes, as the e2e runner makes.
func randomBlockID() rpc.BlockID {
	id := rpc.BlockID{Hash: make([]byte, 32), PartTotal: 100, PartHash: make([]byte, 32)}
	_, _ = rand.Read(id.Hash)
	_, _ = rand.Read(id.PartHash)
	return id
}
