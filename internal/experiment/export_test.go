package experiment

import (
	"context"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
)

// BuildPrograms builds (or finds in the cache) every program a testnet of
// m runs, as Run would: for the tests that build before they take the node
// lock, so that a build does not hold up other packages' node tests.
func BuildPrograms(ctx context.Context, m manifest.Resolved, f *cometbft.Fetcher) error {
	_, err := testnetSpec(ctx, m, f, "build")
	return err
}

// ChooseTimeScale is chooseTimeScale, for the tests that check a run's
// record of time_scale = "auto" against its own probes.
var ChooseTimeScale = chooseTimeScale
