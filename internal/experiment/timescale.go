package experiment

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
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

// harnessEvery is one of the harness's own fixed intervals d (the live
// reader's poll and line, the progress line, the files' flush, the disk
// guard) on the pipeline's testnet: ×k at time scale k, so that the
// harness does k times less of that work per second of the host, as the
// nodes do; d itself in real time.
func (p *pipeline) harnessEvery(d time.Duration) time.Duration {
	return scaledTimeout(d, 0, p.scale)
}

// checkSideScales refuses, as bad input and before anything runs, the
// sides of an A/B experiment that run at different time scales, unless
// allow: their figures would be in model time, but the load on the host
// would differ (as compare refuses their runs).
func checkSideScales(sides []manifest.Resolved, labels []string, allow bool) error {
	if allow {
		return nil
	}
	for i := 1; i < len(sides); i++ {
		if a, b := sides[0].TimeScale, sides[i].TimeScale; a != b {
			return exitcode.With(fmt.Errorf("side %s runs at time scale %s and side %s at %s: their figures would be in model time, "+
				"but the load on the host would not be the same; give --allow-time-scale-mismatch to run and compare them anyway",
				labels[0], strconv.FormatFloat(a, 'g', -1, 64), labels[i], strconv.FormatFloat(b, 'g', -1, 64)), exitcode.Usage)
		}
	}
	return nil
}
