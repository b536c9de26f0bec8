package payload

// LaneWeight is one mempool lane of a load and its weight: the share of
// the load's transactions that ask for the lane is its weight over the
// sum of the weights.
type LaneWeight struct {
	ID     string `json:"id"`
	Weight uint64 `json:"weight"`
}

// LanePicker picks each transaction's lane by weight, deterministically
// from its connection and sequence number, so that whoever has the
// weights (the generator when it sends, the analysis when it reads the
// chain) gets the same lane for the same transaction. The zero value
// picks none ("").
type LanePicker struct {
	lanes []LaneWeight
	cum   []uint64 // cumulative weights, in lanes' order
}

// NewLanePicker returns the picker of lanes (lanes of weight 0 are never
// picked).
func NewLanePicker(lanes []LaneWeight) LanePicker {
	p := LanePicker{lanes: lanes}
	var sum uint64
	for _, l := range lanes {
		sum += l.Weight
		p.cum = append(p.cum, sum)
	}
	if sum == 0 {
		return LanePicker{}
	}
	return p
}

// Index returns the position in the picker's lanes of the lane of
// transaction seq of connection conn, or -1 for a picker of no lanes.
func (p LanePicker) Index(conn, seq uint64) int {
	if len(p.cum) == 0 {
		return -1
	}
	x := mix(conn*0x9e3779b97f4a7c15^seq) % p.cum[len(p.cum)-1]
	for i, c := range p.cum {
		if x < c {
			return i
		}
	}
	return len(p.cum) - 1 // unreachable: x < the sum
}

// Pick returns the lane id of transaction seq of connection conn, ""
// for a picker of no lanes.
func (p LanePicker) Pick(conn, seq uint64) string {
	if i := p.Index(conn, seq); i >= 0 {
		return p.lanes[i].ID
	}
	return ""
}

// mix is SplitMix64's finaliser: every input bit moves every output bit,
// so consecutive sequence numbers spread over the lanes by their weights.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
