package report

import (
	"github.com/cometlab/cometlab/internal/results"
)

// lanesLatency draws, for each mempool lane of the load (highest
// priority first, one colour each), the distribution of its committed
// transactions' block latency: the fraction (y) committed within x ms.
func (d *plotData) lanesLatency() ([]byte, error) {
	ls := d.run.Load.Lanes
	if len(ls) == 0 {
		return nil, noData("a load without mempool lanes")
	}
	c := newChart("Block latency per mempool lane", "block latency (ms)", "fraction of the lane's committed txs")
	drawn := 0
	for k, l := range lanesByPriority(d.s.Lanes) {
		i := -1
		for j := range ls {
			if ls[j].ID == l.ID {
				i = j
			}
		}
		var xs, ys []float64
		for p := 0; p <= 100; p++ {
			v, ok := d.agg.LaneLatency(i, float64(p))
			if !ok {
				break
			}
			xs, ys = append(xs, v/results.NsPerMs), append(ys, float64(p)/100)
		}
		if len(xs) == 0 {
			continue
		}
		c.nodeLine("lane "+l.ID, k, xs, ys)
		drawn++
	}
	if drawn == 0 {
		return nil, noData("no lane had a transaction committed")
	}
	c.yrange(0, 1)
	return c.render(d.w, d.h)
}
