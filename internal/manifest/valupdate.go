package manifest

import (
	"cmp"
	"maps"
	"slices"
	"strconv"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// MaxUpdatePower is the largest voting power a validator update may give:
// the e2e app reads the powers of its validator_update as uint8.
const MaxUpdatePower = 255

// ValidatorUpdate is one validator's new voting power at a height, made
// by the e2e app (a [validator_update.HEIGHT] entry).
type ValidatorUpdate struct {
	// Height is the height whose FinalizeBlock (EndBlock) returns the
	// update; the set changes at Height + 2. Height 0 is InitChain: the
	// validators it returns replace the genesis ones from height 1.
	Height int64
	// Node is the validator; Power its new voting power, 0 to remove it.
	Node  string
	Power int64
}

// EffectiveHeight is the first height whose validator set has the
// update: Height + 2, or 1 for InitChain's (Height 0).
func (u ValidatorUpdate) EffectiveHeight() int64 {
	if u.Height == 0 {
		return 1
	}
	return u.Height + 2
}

// resolveValidatorUpdates checks the [validator_update.HEIGHT] tables: the
// e2e app makes the updates, so app must be e2e; each names a validator of
// the testnet and a power 0..[MaxUpdatePower]; the key type is one the
// app's updates can carry; the set keeps a validator at every height;
// and the genesis powers a partition's split or an absent stake is judged
// by must stay the powers of the run. Updates come sorted by height, then
// node.
func (m *Manifest) resolveValidatorUpdates(ps *problems, r *Resolved) []ValidatorUpdate {
	if len(m.ValidatorUpdate) == 0 {
		return nil
	}
	if r.App != AppE2E {
		ps.add(f("validator_update"), "validator updates are made by the e2e app (app = %q), not by %q", AppE2E, r.App)
		return nil
	}
	if r.KeyType != "" && r.KeyType != cometbft.KeyEd25519 && r.KeyType != cometbft.KeySecp256k1 {
		ps.add(f("validator_update"), "the e2e app's validator updates (abci.UpdateValidator) carry ed25519 and secp256k1 keys only, not key_type %q", r.KeyType)
	}
	if r.Partition != nil {
		ps.add(f("validator_update"), "a [partition]'s split is judged by the genesis voting powers, which validator updates change")
	}
	if slices.ContainsFunc(r.Nodes, func(n Node) bool { return n.Absent }) {
		ps.add(f("validator_update"), "an absent stake is judged by the genesis voting powers, which validator updates change")
	}
	power := map[string]int64{}
	for _, n := range r.Nodes {
		if n.Mode == ModeValidator {
			power[n.Name] = n.Power
		}
	}
	var out []ValidatorUpdate
	for _, hs := range slices.Sorted(maps.Keys(m.ValidatorUpdate)) {
		h, err := strconv.ParseInt(hs, 10, 64)
		if err != nil || h < 0 {
			ps.add(f("validator_update", hs), "the height must be an integer >= 0 (0 is InitChain), got %q", hs)
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(m.ValidatorUpdate[hs])) {
			p := m.ValidatorUpdate[hs][name]
			field := f("validator_update", hs, name)
			if _, ok := power[name]; !ok {
				ps.add(field, "no validator named %q (an update changes a validator's power; full nodes and seeds have no validator key in the genesis)", name)
				continue
			}
			if p < 0 || p > MaxUpdatePower {
				ps.add(field, "power must be 0 (removed) to %d (the e2e app reads it as uint8), got %d", MaxUpdatePower, p)
				continue
			}
			out = append(out, ValidatorUpdate{Height: h, Node: name, Power: p})
		}
	}
	slices.SortStableFunc(out, func(a, b ValidatorUpdate) int { return cmp.Compare(a.Height, b.Height) })
	for i, u := range out {
		power[u.Node] = u.Power
		if i+1 < len(out) && out[i+1].Height == u.Height {
			continue
		}
		var total int64
		for _, p := range power {
			total += p
		}
		if total == 0 {
			ps.add(f("validator_update", strconv.FormatInt(u.Height, 10)), "leaves no validator with power from height %d", u.EffectiveHeight())
		}
	}
	return out
}
