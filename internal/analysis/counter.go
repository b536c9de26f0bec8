package analysis

// sumCounter puts each node's increase of the counter short as figure id
// and returns their sum, false when no node of nodes was scraped. CometBFT
// (go-kit) exposes a counter only once it is first incremented, so a node
// whose series scraped (a series every scraped node has) is present
// without the counter has counted 0.
func sumCounter(set *SeriesSet, b *builder, nodes []string, id, short, scraped string) (float64, bool) {
	total, any := 0.0, false
	for _, n := range nodes {
		v := 0.0
		if s := set.One(n, short); s != nil {
			v = Increase(s.V)
		} else if set.One(n, scraped) == nil {
			continue
		}
		b.putNode(n, id, v)
		total += v
		any = true
	}
	return total, any
}
