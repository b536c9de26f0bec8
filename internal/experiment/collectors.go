package experiment

import (
	"context"
	"sync"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/results"
)

// collectors run alongside the load: the heights watcher, and the metrics
// scraper and resource sampler when the run has targets for them.
type collectors struct {
	runners []interface{ Run(context.Context) error }
	files   []*results.Writer
	scraper *collect.Scraper
	res     *collect.Resources
}

func (lp *loadPhase) collectors(heights *collect.Heights) (*collectors, error) {
	c := &collectors{runners: []interface{ Run(context.Context) error }{heights}}
	if len(lp.scrape) > 0 && lp.prom == nil {
		w, err := results.Create(lp.rd.path(results.MetricsFile), results.MetricsHeader)
		if err != nil {
			return c, err
		}
		c.files = append(c.files, w)
		c.scraper = collect.NewScraper(lp.scrape, lp.scrapeCfg, w, lp.logger)
		c.runners = append(c.runners, c.scraper)
	}
	if len(lp.procs) > 0 {
		w, err := results.Create(lp.rd.path(results.ResourceFile), results.ResourcesHeader)
		if err != nil {
			return c, err
		}
		c.files = append(c.files, w)
		c.res = collect.NewResources(lp.procs, lp.resCfg, w, lp.logger)
		c.runners = append(c.runners, c.res)
	}
	return c, nil
}

func (c *collectors) run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, r := range c.runners {
		wg.Go(func() { _ = r.Run(ctx) })
	}
	wg.Wait()
}

func (c *collectors) flush() {
	for _, w := range c.files {
		w.Flush()
	}
}
