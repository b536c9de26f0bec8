package experiment

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
)

// SDKTxsFile is the run directory's file of the signed sends an SDK
// chain's run sends (run.json load.txs names it).
const SDKTxsFile = "sdk-txs.b64"

// SDKMetricsPrefix begins the names of the SDK chain's own metrics (its
// telemetry's Prometheus sink, service name "sdkchain"), which its node
// serves beside CometBFT's.
const SDKMetricsPrefix = "sdkchain_"

// presignSDK signs the load of an SDK chain's run: cometlab's chain's
// `presign` (the nodes' binary, or beside a user's chain the tool) signs bank sends from the genesis's funded
// accounts for chainID into path, as many as the load schedules (rounded
// up to whole rounds of its connections, and one round more), each
// account on one connection with its sequences in send order (or
// unordered), and returns them as the load's source.
func presignSDK(ctx context.Context, spec cometbft.Spec, m manifest.Resolved, chainID, path string, out *Printer) (load.TxSource, error) {
	sdk := manifest.SDKOf(m.AppConfig)
	c := int64(m.Load.Connections)
	count := (m.Load.ExpectedTxs()+c-1)/c*c + c
	args := append(spec.SDK.PresignArgs(), "--chain-id", chainID, "--accounts", strconv.Itoa(sdk.Accounts), "-c", strconv.FormatInt(c, 10),
		"--count", strconv.FormatInt(count, 10), "--amount", strconv.FormatInt(sdk.Amount, 10), "--gas", strconv.FormatInt(sdk.Gas, 10), "-o", path)
	if sdk.Fee > 0 {
		args = append(args, "--fee", strconv.FormatInt(sdk.Fee, 10)+sdk.Denom)
	}
	if sdk.Unordered {
		args = append(args, "--unordered", "--ttl", manifest.UnorderedTTL.String())
	}
	kind := "bank sends"
	if sdk.Outputs >= 2 {
		args = append(args, "--outputs", strconv.Itoa(sdk.Outputs))
		kind = fmt.Sprintf("multi-sends to %d accounts", sdk.Outputs)
	}
	start := time.Now()
	if _, err := spec.Presign(ctx, args); err != nil {
		return nil, fmt.Errorf("sign the SDK chain's load: %w", err)
	}
	order := "sequenced"
	if sdk.Unordered {
		order = "unordered"
	}
	out.Phase("load: %d %s %s signed from %d accounts over %d connections in %s (%s)", count, order, kind, sdk.Accounts, c,
		time.Since(start).Round(10*time.Millisecond), path)
	w := m.Load
	w.TxsFile = path
	return txSource(w)
}
