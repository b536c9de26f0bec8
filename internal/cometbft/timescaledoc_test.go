package cometbft_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

const (
	scaleDocBegin = "<!-- timescale:begin — generated from internal/cometbft/versions.go and timescale.go by TestTimeScaleDoc (go test ./internal/cometbft -run TestTimeScaleDoc -update); do not edit -->\n"
	scaleDocEnd   = "<!-- timescale:end -->\n"
)

// TestTimeScaleDoc keeps docs/timescale.md's table of the keys a time
// scale changes, per release line, identical to the lines' facts; -update
// rewrites it.
func TestTimeScaleDoc(t *testing.T) {
	resultstest.Section(t, filepath.Join("..", "..", "docs", "timescale.md"), scaleDocBegin, scaleDocEnd, timeScaleMarkdown())
}

// timeScaleMarkdown is the generated section: the keys every line scales,
// then each line's own, with their defaults.
func timeScaleMarkdown() string {
	ls := cometbft.Lines()
	common := map[string]string{}
	for k, v := range ls[0].ScaledTimes {
		if !slices.ContainsFunc(ls, func(l cometbft.Line) bool { return l.ScaledTimes[k] != v }) {
			common[k] = v
		}
	}
	list := func(m map[string]string, skip map[string]string) string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if _, ok := skip[k]; !ok {
				out = append(out, fmt.Sprintf("`%s` %s", k, m[k]))
			}
		}
		if len(out) == 0 {
			return "—"
		}
		return strings.Join(out, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Every line, config.toml ×k: %s; ÷k: %s.\n\n", list(common, nil), list(ls[0].ScaledRates, nil))
	b.WriteString("| line | config.toml ×k (besides every line's) | genesis `consensus_params` ×k | e2e app `app.toml` ×k |\n")
	b.WriteString("| --- | --- | --- | --- |\n")
	for _, l := range ls {
		app := "—"
		if len(l.E2EAppScaledTimes) > 0 {
			app = "`" + strings.Join(l.E2EAppScaledTimes, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", l.Prefix, list(l.ScaledTimes, common), list(l.GenesisScaledTimes, nil), app)
	}
	fmt.Fprintf(&b, "\nGenesis durations are integers of nanoseconds (`block.time_iota_ms` of milliseconds). k is at most %d.\n", cometbft.MaxTimeScale)
	return b.String()
}
