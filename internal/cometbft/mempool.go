package cometbft

import (
	"fmt"
	"strings"
)

// Mempool types (config.toml's mempool.type, CometBFT's names).
const (
	// MempoolFlood is CometBFT's own mempool (the concurrent list that
	// floods transactions to peers), the default of every line.
	MempoolFlood = "flood"
	// MempoolNop is the nop mempool: CometBFT keeps, gossips and proposes
	// no transaction, and broadcast_tx fails; the app is responsible for
	// them. Not with consensus.create_empty_blocks = false.
	MempoolNop = "nop"
	// MempoolApp is the app-side mempool: CheckTx and the transactions
	// that peers send go to the app (ABCI InsertTx), CometBFT reaps the
	// app's transactions (ReapTxs every mempool.reap_interval) to gossip
	// them, and the app builds each block in PrepareProposal.
	MempoolApp = "app"
)

// Feature is a setting of a release line with the release it came with.
type Feature struct {
	// Name is the setting's value as config.toml takes it.
	Name string
	// Since is the line's first release that has it; "" when every
	// release of the line has it.
	Since string
}

// AppMempoolSocketFixed is the first release whose ABCI socket client
// carries InsertTx and ReapTxs: before it, an app-side mempool with an app
// reached over a socket makes the node stop itself on the first
// InsertTx (ErrUnexpectedResponse; cometbft#5958, v0.40.0's changelog).
const AppMempoolSocketFixed = "v0.40.0"

// MempoolsOf returns the mempool types release version has, flood first,
// or nil for a release of no known line.
func MempoolsOf(version string) []string {
	l, err := LineOf(version)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range l.Mempools {
		if m.Since == "" || !Older(version, m.Since) {
			out = append(out, m.Name)
		}
	}
	return out
}

// MempoolProblem says why release version cannot run mempool type name
// ("" when it can): `v0.38.1 has only flood (nop came with v0.38.2)`.
func MempoolProblem(version, name string) string {
	l, err := LineOf(version)
	if err != nil {
		return err.Error()
	}
	has := MempoolsOf(version)
	for _, h := range has {
		if h == name {
			return ""
		}
	}
	msg := fmt.Sprintf("%s has only the %s mempool", version, strings.Join(has, ", "))
	for _, m := range l.Mempools {
		if m.Name == name && m.Since != "" {
			msg += fmt.Sprintf(" (%s came with %s)", name, m.Since)
		}
	}
	return msg
}

// AdaptiveSyncProblem says why release version has no
// blocksync.adaptive_sync ("" when it has).
func AdaptiveSyncProblem(version string) string {
	l, err := LineOf(version)
	if err != nil {
		return err.Error()
	}
	if !l.AdaptiveSync {
		return fmt.Sprintf("%s has no blocksync.adaptive_sync (it came with v0.39.0; the v1.0 and v2.0 lines branched before it)", version)
	}
	return ""
}
