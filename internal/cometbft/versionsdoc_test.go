package cometbft_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

const (
	docBegin = "<!-- versions:begin — generated from internal/cometbft/versions.go by TestVersionsDoc (go test ./internal/cometbft -run TestVersionsDoc -update); do not edit -->\n"
	docEnd   = "<!-- versions:end -->\n"
)

// versionsDoc is the page whose generated section TestVersionsDoc keeps.
var versionsDoc = filepath.Join("..", "..", "docs", "versions.md")

// TestVersionsDoc keeps the generated section of docs/versions.md (the
// version table, differences and mixed-network table) identical to the
// facts of versions.go (which the version-matrix test checks against the
// releases themselves); -update rewrites it.
func TestVersionsDoc(t *testing.T) {
	resultstest.Section(t, versionsDoc, docBegin, docEnd, versionsMarkdown())
}

func code(keys []string, sign string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = sign + "`" + k + "`"
	}
	return strings.Join(out, " ")
}

// versionsMarkdown is docs/versions.md's generated section: the lines' facts,
// what differs against each line's parent, and which lines mix.
func versionsMarkdown() string {
	var b strings.Builder
	ls := cometbft.Lines()
	b.WriteString("| line | release run | go.mod declares → built by | `cometbft version` | p2p / block / ABCI | `db_backend` | genesis `block.max_bytes` / `max_gas` | kvstore app hash after InitChain | validator key types | `mempool.type` | `blocksync.adaptive_sync` |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, l := range ls {
		method := cometbft.MethodInstall
		if l.ModulePath != cometbft.ModuleOf(l.Proven) {
			method = cometbft.MethodMainModule
		}
		hash := "`" + l.KVStoreInitAppHash + "`"
		if l.KVStoreInitAppHash == "" {
			hash = "empty"
		}
		var keys []string
		for _, k := range l.KeyTypes {
			s := "`" + k.Name + "`"
			if k.Since != "" {
				s += " (since " + k.Since + ")"
			}
			if k.Tag != "" && k.CGO {
				s += " (tag `" + k.Tag + "`, cgo)"
			} else if k.Tag != "" {
				s += " (tag `" + k.Tag + "`)"
			}
			if k.Halts != "" {
				s += " (halts: [a bug](keys.md#bls12_381-on-v039-and-v040))"
			}
			keys = append(keys, s)
		}
		var mempools []string
		for _, m := range l.Mempools {
			s := "`" + m.Name + "`"
			if m.Since != "" {
				s += " (since " + m.Since + ")"
			}
			mempools = append(mempools, s)
		}
		adaptive := "no"
		if l.AdaptiveSync {
			adaptive = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` → %s | %s | %d / %d / %s | %s | %d / %d | %s | %s | %s | %s |\n", l.Prefix, l.Proven,
			l.ModulePath, method, l.Reports, l.P2PProtocol, l.BlockProtocol, l.ABCI, l.DBBackend, l.BlockMaxBytes, l.BlockMaxGas, hash,
			strings.Join(keys, ", "), strings.Join(mempools, ", "), adaptive)
	}
	b.WriteString("\nWhat differs, against the line each branched from (config.toml and genesis keys of `cometbft init`, ")
	b.WriteString("families of the default metrics scrape, keys of the e2e app node's config):\n\n")
	byPrefix := map[string]cometbft.Line{}
	for _, l := range ls {
		byPrefix[l.Prefix] = l
		var parts []string
		if len(l.ConfigAdded)+len(l.ConfigRemoved) > 0 {
			parts = append(parts, "config.toml "+strings.TrimSpace(code(l.ConfigAdded, "+")+" "+code(l.ConfigRemoved, "−")))
		}
		if len(l.GenesisAdded)+len(l.GenesisRemoved) > 0 {
			parts = append(parts, "genesis `consensus_params` "+strings.TrimSpace(code(l.GenesisAdded, "+")+" "+code(l.GenesisRemoved, "−")))
		}
		var metrics []string
		for _, def := range sortedKeys(l.MetricsAbsent) {
			if eq := l.MetricsAbsent[def]; eq != "" {
				metrics = append(metrics, fmt.Sprintf("`%s` is `%s`", def, eq))
			} else {
				metrics = append(metrics, fmt.Sprintf("no `%s`", def))
			}
		}
		if len(metrics) > 0 {
			parts = append(parts, "metrics: "+strings.Join(metrics, ", "))
		}
		if p, ok := byPrefix[l.Parent]; ok && p.MedianTimeCommitOnly != l.MedianTimeCommitOnly {
			votes := "commit and nil votes"
			if l.MedianTimeCommitOnly {
				votes = "commit votes only"
			}
			parts = append(parts, "a block's time counts the last commit's "+votes)
		}
		if p, ok := byPrefix[l.Parent]; ok {
			added, removed := diff(l.E2EAppKeys, p.E2EAppKeys), diff(p.E2EAppKeys, l.E2EAppKeys)
			if len(added)+len(removed) > 0 {
				parts = append(parts, "e2e app keys "+strings.TrimSpace(code(added, "+")+" "+code(removed, "−")))
			}
		} else {
			parts = append(parts, "e2e app keys "+code(l.E2EAppKeys, ""))
		}
		if len(l.NewConsensusMessages) > 0 {
			parts = append(parts, "new consensus messages "+code(l.NewConsensusMessages, ""))
		}
		against := "the oldest line"
		if l.Parent != "" {
			against = "against " + l.Parent
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing")
		}
		fmt.Fprintf(&b, "- **%s** (%s): %s.\n", l.Prefix, against, strings.Join(parts, "; "))
	}
	b.WriteString("\nMixed networks (validators of two lines, the built-in kvstore):\n\n|  |")
	for _, l := range ls[1:] {
		b.WriteString(" " + l.Prefix + " |")
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(ls)-1) + "\n")
	var notes []string
	for i, a := range ls[:len(ls)-1] {
		fmt.Fprintf(&b, "| **%s** |", a.Prefix)
		for j, c := range ls[1:] {
			if j < i {
				b.WriteString("  |")
				continue
			}
			m := cometbft.Mix(a, c)
			cell := "commits"
			switch {
			case !m.Starts:
				cell = "never starts"
			case m.MayHalt:
				cell = "commits, may halt"
			}
			var refs []int
			for _, w := range m.Why {
				k := slices.Index(notes, w)
				if k < 0 {
					notes = append(notes, w)
					k = len(notes) - 1
				}
				refs = append(refs, k+1)
			}
			slices.Sort(refs)
			for _, k := range refs {
				cell += fmt.Sprintf(" (%d)", k)
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for i, n := range notes {
		fmt.Fprintf(&b, "%d. %s.\n", i+1, strings.ToUpper(n[:1])+n[1:])
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// diff returns the elements of a not in b.
func diff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
