package analysis

import (
	"math"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
)

// TxAggregates is what the figures and plots take from sent.csv,
// replies.csv and txs.csv, gathered one row at a time (AddSent, then
// AddReply, then AddTx) in memory that does not grow with the number of
// transactions but for the reconciliation's state: 1 byte per send, 2
// more per send once a reply refused one (~30 MB for 10 M transactions,
// against ~450 B per transaction held as rows). Latencies go to Sketches,
// the latency scatter to a bounded Scatter, per-height latency sums to a
// map the size of the chain.
type TxAggregates struct {
	led            ledger
	repeats        int
	sent, unsent   int64
	late           int64
	lateNs         int64
	lag            Sketch // actual − intended send time of each sent tx, ns
	firstIntended  int64
	orphanReplies  int
	duplicates     int64
	unlogged       int64
	committedUnsnt int64

	// Block and Observed are the block and observed latencies (ns) of
	// the committed transactions, duplicates left out.
	Block, Observed Sketch
	noCommit        int
	negative        int
	lastCommit      int64
	obsSkipped      int
	target          heightTimes // the target's first commit of each height
	zones           []zoneLatency

	// FirstSent is the earliest payload time of a committed transaction
	// (duplicates included), Unix ns; 0 when there is none.
	FirstSent int64
	// Scatter is the (send time, block latency) of the committed
	// transactions with a commit time, duplicates left out, decimated.
	Scatter Scatter
	// Heights holds, per height, the block latencies of its committed
	// transactions (duplicates left out): the per-block means that the
	// decline fit uses.
	Heights map[int64]*HeightLatency

	// The offered load of a shaped run (see Offered, EarlyLatency).
	loadStart, earlyEnd int64   // load start and the end of its first kneeLagShare, Unix ns (0: unknown)
	offered             []int64 // scheduled sends per second from loadStart
	early               Sketch  // block latencies (ns) of the txs sent before earlyEnd

	// LoadPath holds, per Unix second, the sends made in it, those late
	// by more than the late threshold, the largest lag, and the replies
	// read in it that refused or rejected a tx: the block autopsy's
	// evidence of the load path (one entry per second of the load).
	LoadPath map[int64]*LoadPathSecond

	// The load's clients (run.json load.clients) and each one's latencies;
	// nil for a load of one client.
	load    results.Load
	clients []clientLatency

	// The load's mempool lanes (run.json load.lanes) and each one's
	// counts and latencies; nil without lanes.
	lanePick payload.LanePicker
	lanes    []laneLatency
}

// Offered returns the scheduled sends (rows of sent.csv, by intended time)
// in each second from the load start: the offered load, one count a
// second, so memory grows with the load's length, not its transactions.
// It is nil when the load start is unknown.
func (a *TxAggregates) Offered() []int64 { return a.offered }

// EarlyLatency returns the median block latency (ns) of the committed
// transactions sent in the first kneeLagShare of the load, or 0 when
// there are none.
func (a *TxAggregates) EarlyLatency() float64 {
	if a.early.N() == 0 {
		return 0
	}
	return a.early.Percentile(50)
}

// HeightLatency sums the block latencies (ns) of one height's
// transactions and spans their send times.
type HeightLatency struct {
	Sum float64
	N   int64
	// FirstSent and LastSent are the earliest and the latest send time
	// (Unix ns) of its transactions.
	FirstSent, LastSent int64
}

// LoadPathSecond is one second of TxAggregates.LoadPath.
type LoadPathSecond struct {
	Sends, Late int64
	MaxLagNs    int64
	Errors      int64 // replies refusing or rejecting a tx
}

// pathSecond returns the LoadPath entry of the second of t (Unix ns).
func (a *TxAggregates) pathSecond(t int64) *LoadPathSecond {
	k := t / int64(results.NsPerS)
	p := a.LoadPath[k]
	if p == nil {
		p = &LoadPathSecond{}
		a.LoadPath[k] = p
	}
	return p
}

// NewTxAggregates returns empty aggregates for the run, whose target's
// adoption rows (from adoption) give the observed latency.
func NewTxAggregates(run results.Run, adoption []results.Adoption) *TxAggregates {
	a := &TxAggregates{lateNs: int64(run.Load.LateThreshold * results.NsPerS), Heights: map[int64]*HeightLatency{},
		LoadPath: map[int64]*LoadPathSecond{}}
	a.Scatter.init(run)
	if len(run.Load.Clients) > 0 {
		a.load, a.clients = run.Load, make([]clientLatency, len(run.Load.Clients))
	}
	a.initLanes(run.Load)
	if !run.LoadStart.IsZero() {
		a.loadStart = run.LoadStart.UnixNano()
		a.earlyEnd = a.loadStart + int64(run.Load.DurationS*kneeLagShare*results.NsPerS)
	}
	a.target = newHeightTimes(adoption, func(node string) bool { return node == run.Target })
	a.zones = newZoneLatencies(run, adoption)
	return a
}

// AggregateTxs aggregates the rows of in.Sent, in.Replies and in.Txs.
func AggregateTxs(in Input) *TxAggregates {
	a := NewTxAggregates(in.Run, in.Adoption)
	for i := range in.Sent {
		a.AddSent(&in.Sent[i])
	}
	for i := range in.Replies {
		a.AddReply(&in.Replies[i])
	}
	for i := range in.Txs {
		a.AddTx(&in.Txs[i])
	}
	a.Seal()
	return a
}

// Seal readies the aggregates for readers that may run in parallel (the
// plots): after it, reading the sketches modifies nothing. Add no row
// after Seal.
func (a *TxAggregates) Seal() {
	sketches := []*Sketch{&a.Block, &a.Observed, &a.lag, &a.early}
	for i := range a.zones {
		sketches = append(sketches, &a.zones[i].lat)
	}
	for i := range a.clients {
		sketches = append(sketches, &a.clients[i].block, &a.clients[i].observed)
	}
	for i := range a.lanes {
		sketches = append(sketches, &a.lanes[i].block)
	}
	for _, s := range sketches {
		if s.pos == nil {
			s.sortExact()
		}
	}
}

// AddSent adds a row of sent.csv; every row must be added before the
// first reply or transaction. A repeated (connection, sequence) counts
// once, as its first row.
func (a *TxAggregates) AddSent(r *results.Sent) {
	if t := r.Intended; t > 0 && (a.firstIntended == 0 || t < a.firstIntended) {
		a.firstIntended = t
	}
	st := a.led.log(r.Conn, r.Seq)
	if st == nil {
		a.repeats++
		return
	}
	if a.loadStart != 0 && r.Intended >= a.loadStart {
		if k := (r.Intended - a.loadStart) / int64(results.NsPerS); k < maxOfferedSeconds {
			for int64(len(a.offered)) <= k {
				a.offered = append(a.offered, 0)
			}
			a.offered[k]++
		}
	}
	if r.Actual == 0 || r.Err != "" {
		a.unsent++
		return
	}
	*st |= stSent
	a.sent++
	if l := a.laneOf(r.Conn, r.Seq); l != nil {
		l.sent++
	}
	lag := r.Actual - r.Intended
	a.lag.Add(float64(lag))
	p := a.pathSecond(r.Actual)
	p.Sends++
	p.MaxLagNs = max(p.MaxLagNs, lag)
	if lag > a.lateNs {
		a.late++
		p.Late++
	}
}

// maxOfferedSeconds bounds Offered (a year), against a wild intended time.
const maxOfferedSeconds = 366 * 24 * 3600

// AddReply adds a row of replies.csv.
func (a *TxAggregates) AddReply(r *results.Reply) {
	st := a.led.find(r.Conn, r.Seq)
	if st == nil {
		a.orphanReplies++
		return
	}
	if r.OK {
		*st |= stReplyOK
		return
	}
	*st |= stReplyErr
	if r.At > 0 {
		a.pathSecond(r.At).Errors++
	}
	if results.IsRefusal(r.Code) {
		*st |= stRefused
	}
	a.led.refuse(r.Conn, r.Seq, r.Message, r.Code)
}

// AddTx adds a row of txs.csv.
func (a *TxAggregates) AddTx(t *results.Tx) {
	if a.FirstSent == 0 || t.Sent < a.FirstSent {
		a.FirstSent = t.Sent
	}
	if t.Duplicate {
		a.duplicates++
	}
	st := a.led.find(t.Conn, t.Seq)
	switch {
	case st == nil && !t.Duplicate:
		a.unlogged++
	case st != nil:
		if *st&(stSent|stCommitted) == 0 {
			a.committedUnsnt++
		}
		*st |= stCommitted
	}
	if t.Duplicate {
		return
	}
	lane := a.laneOf(t.Conn, t.Seq)
	if lane != nil {
		lane.committed++
	}

	// Block latency.
	a.lastCommit = max(a.lastCommit, commitTime(t))
	if t.CommitTime == 0 {
		a.noCommit++
	} else {
		l := t.Latency()
		if l < 0 {
			a.negative++
		}
		a.Block.Add(float64(l))
		if c := a.clientOf(t.Conn); c != nil {
			c.block.Add(float64(l))
			c.addCommit(a.loadStart, t.CommitTime)
		}
		if lane != nil {
			lane.block.Add(float64(l))
		}
		a.Scatter.add(t.Sent, l)
		if t.Sent >= a.loadStart && t.Sent < a.earlyEnd {
			a.early.Add(float64(l))
		}
		h := a.Heights[t.Height]
		if h == nil {
			h = &HeightLatency{FirstSent: t.Sent, LastSent: t.Sent}
			a.Heights[t.Height] = h
		}
		h.FirstSent, h.LastSent = min(h.FirstSent, t.Sent), max(h.LastSent, t.Sent)
		h.Sum += float64(l)
		h.N++
	}

	// Latency seen from each zone.
	for i := range a.zones {
		if at, ok := a.zones[i].at.of(t.Height); ok {
			a.zones[i].lat.Add(float64(at - t.Sent))
		}
	}

	// Observed latency.
	if a.target.empty() {
		return
	}
	if at, ok := a.target.of(t.Height); !ok {
		a.obsSkipped++
	} else {
		a.Observed.Add(float64(at - t.Sent))
		if c := a.clientOf(t.Conn); c != nil {
			c.observed.Add(float64(at - t.Sent))
		}
	}
}

// Scatter is a deterministic, bounded sample of (send time, latency)
// points: every point while there are at most ScatterCap, else every
// 2^k-th point in the order added (k the smallest that fits the cap),
// plus, in each of ScatterColumns equal columns of the load window
// (when run.json gives one), the point of highest latency, so that a
// spike is never thinned away.
type Scatter struct {
	Sent, Latency []int64 // Unix ns, ns
	Total         int64   // points offered
	stride        int64
	colFrom       int64 // load start, Unix ns; 0 without columns
	colWidth      int64
	colMax        [][2]int64 // per column: sent, latency; latency = MinInt64 when empty
}

// ScatterCap is the most points a Scatter samples systematically.
const ScatterCap = 1 << 18

// ScatterColumns is the number of columns in which a Scatter keeps the
// highest point.
const ScatterColumns = 1024

func (s *Scatter) init(run results.Run) {
	s.stride = 1
	if run.LoadStart.IsZero() || run.Load.DurationS <= 0 {
		return
	}
	s.colFrom = run.LoadStart.UnixNano()
	s.colWidth = max(1, int64(run.Load.DurationS*results.NsPerS)/ScatterColumns)
}

func (s *Scatter) add(sent, lat int64) {
	if s.stride == 0 {
		s.stride = 1
	}
	if s.Total%s.stride == 0 {
		s.Sent, s.Latency = append(s.Sent, sent), append(s.Latency, lat)
		if len(s.Sent) > ScatterCap {
			j := 0
			for i := 0; i < len(s.Sent); i += 2 {
				s.Sent[j], s.Latency[j] = s.Sent[i], s.Latency[i]
				j++
			}
			s.Sent, s.Latency = s.Sent[:j], s.Latency[:j]
			s.stride *= 2
		}
	}
	s.Total++
	if s.colWidth > 0 && sent >= s.colFrom {
		if s.colMax == nil {
			s.colMax = make([][2]int64, ScatterColumns)
			for i := range s.colMax {
				s.colMax[i][1] = math.MinInt64
			}
		}
		if k := (sent - s.colFrom) / s.colWidth; k < ScatterColumns && lat > s.colMax[k][1] {
			s.colMax[k] = [2]int64{sent, lat}
		}
	}
}

// Decimated tells whether the sample leaves points out.
func (s *Scatter) Decimated() bool { return s.stride > 1 }

// Points returns the points to draw: the sample, plus the highest point
// of each column when the sample leaves points out.
func (s *Scatter) Points() (sent, lat []int64) {
	if !s.Decimated() {
		return s.Sent, s.Latency
	}
	sent, lat = append([]int64(nil), s.Sent...), append([]int64(nil), s.Latency...)
	for _, c := range s.colMax {
		if c[1] != math.MinInt64 {
			sent, lat = append(sent, c[0]), append(lat, c[1])
		}
	}
	return sent, lat
}
