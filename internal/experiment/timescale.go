package experiment

import (
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// defaultScrapeInterval is Collect.ScrapeInterval's default (collect's
// scraper and resource sampler take 0 as 1 s).
const defaultScrapeInterval = time.Second

// scaledTimeout is a wait or a sampling interval of the harness on a
// testnet k times slower than real time (the manifest's time_scale): d,
// or def when d is 0, × k; d itself (0 included) at k = 1, so that an
// unscaled run is left as it was. The harness then waits as long and
// samples as often per model second as it would in real time, and spends
// k times less CPU per second of the host on sampling.
func scaledTimeout(d, def time.Duration, k float64) time.Duration {
	if k == 0 || k == 1 {
		return d
	}
	if d == 0 {
		d = def
	}
	return cometbft.ScaleDuration(d, k)
}
