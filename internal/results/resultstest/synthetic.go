package resultstest

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// Records are the records of a synthetic run held in memory, as the run
// directory's files would hold them.
type Records struct {
	Run       results.Run
	Sent      []results.Sent
	Replies   []results.Reply
	Txs       []results.Tx
	Blocks    []results.Block
	Adoption  []results.Adoption
	Metrics   []results.Metric
	Resources []results.Resource
	Host      []results.HostSample
}

// Synthetic builds a deterministic run: conns connections each sending
// perConn transactions at rate tx/s, blocks every second, the target "n0"
// adopting each height 20–40 ms after its commit. Every 97th send is
// refused ("mempool is full"), every 101st dropped silently, every 89th
// has no reply, every 113th could not be sent, and, when dups, every 211th
// committed transaction is committed again one block later. The nodes of
// its adoption rows expose the metrics and resources of Records.Nodes.
func Synthetic(conns, perConn int, rate float64, dups bool) Records {
	r := rand.New(rand.NewPCG(42, 7))
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	start := t0.UnixNano()
	const (
		sec      = int64(time.Second)
		first    = int64(100)
		blockOff = -sec / 2        // block k's time is start + k s − 0.5 s
		minWait  = sec / 5         // a tx waits at least 200 ms for its block
		adoptMin = 20 * sec / 1000 // adoption 20–40 ms after the commit
	)
	dur := float64(perConn) / rate
	in := Records{Run: results.Run{
		ID: "00000000-0000-4000-8000-000000000042", Status: results.StatusComplete,
		Load:      results.Load{Connections: conns, Rate: rate, Size: 256, DurationS: dur, Pacing: "constant", LateThreshold: 0.05},
		Target:    "n0",
		LoadStart: t0, LoadEnd: t0.Add(time.Duration(dur * float64(sec))),
		FirstHeight: first,
	}}
	period := float64(sec) / rate
	blockTime := func(k int64) int64 { return start + k*sec + blockOff }
	var runTxs []int
	in.Sent = make([]results.Sent, 0, conns*perConn)
	in.Replies = make([]results.Reply, 0, conns*perConn)
	in.Txs = make([]results.Tx, 0, conns*perConn)
	n := 0
	for seq := range perConn {
		for c := range conns {
			n++
			intended := start + int64(float64(seq)*period) + int64(c)*int64(period)/int64(conns)
			s := results.Sent{Conn: c, Seq: uint64(seq), Intended: intended, Actual: intended + int64(r.ExpFloat64()*float64(sec/1000)), Size: 256}
			if n%113 == 0 {
				s.Actual, s.Err = 0, "write: broken pipe"
			}
			in.Sent = append(in.Sent, s)
			if s.Err != "" {
				continue
			}
			reply := results.Reply{Conn: c, Seq: s.Seq, At: s.Actual + sec/100, OK: true}
			if n%97 == 0 {
				reply.OK, reply.Code, reply.Message = false, 20, "mempool is full"
			}
			if n%89 != 0 {
				in.Replies = append(in.Replies, reply)
			}
			if !reply.OK || n%101 == 0 {
				continue
			}
			k := (s.Actual + minWait - blockTime(0) + sec - 1) / sec
			for len(runTxs) <= int(k)+1 {
				runTxs = append(runTxs, 0)
			}
			tx := results.Tx{Conn: c, Seq: s.Seq, Sent: s.Actual, Height: first + k, Index: runTxs[k], BlockTime: blockTime(k), CommitTime: blockTime(k + 1)}
			runTxs[k]++
			in.Txs = append(in.Txs, tx)
			if dups && n%211 == 0 {
				tx.Height, tx.BlockTime, tx.CommitTime, tx.Duplicate, tx.Index = tx.Height+1, blockTime(k+1), blockTime(k+2), true, runTxs[k+1]
				runTxs[k+1]++
				in.Txs = append(in.Txs, tx)
			}
		}
	}
	runTxs = append(runTxs, 0) // one more block, whose successor was not walked
	for k := range runTxs {
		b := results.Block{Height: first + int64(k), Time: blockTime(int64(k)), CommitTime: blockTime(int64(k) + 1), Txs: runTxs[k], RunTxs: runTxs[k], Bytes: 256 * int64(runTxs[k]), Proposer: "n0"}
		if k == len(runTxs)-1 {
			b.CommitTime = 0
		}
		if k%17 == 3 {
			b.Round = 1
		}
		in.Blocks = append(in.Blocks, b)
		at := blockTime(int64(k)+1) + adoptMin + int64(r.Float64()*float64(adoptMin))
		in.Adoption = append(in.Adoption, results.Adoption{Height: b.Height, Node: "n0", At: at}, results.Adoption{Height: b.Height, Node: "n1", At: at - sec/100})
	}
	in.Run.LastHeight = first + int64(len(runTxs)) - 1
	m := in.Nodes()
	m.Generate(func(r *results.Metric) error {
		in.Metrics = append(in.Metrics, *r)
		return nil
	}, func(r *results.Resource) error {
		in.Resources = append(in.Resources, *r)
		return nil
	})
	in.Host = HostOf(in.Resources)
	in.Resources = append(in.Resources, HarnessRows(in.Host)...)
	return in
}

// HarnessRows are cometlab's own resources.csv rows of a synthetic run
// whose host.csv is host: its CPU at each sample, 48 MiB.
func HarnessRows(host []results.HostSample) []results.Resource {
	var out []results.Resource
	for _, h := range host {
		out = append(out, results.Resource{Time: h.Time, Node: results.HarnessProcess, CPU: 100 * h.Harness, RSS: 48 << 20, Load1: h.Load1})
	}
	return out
}

// HostOf is the host.csv of a synthetic run whose resources.csv holds
// resources: a 2-core host, one row per sampling time, the testnet's CPU
// the sum of its rows', cometlab 5 % of a core, other work 0.1 core (5 %
// of the host).
func HostOf(resources []results.Resource) []results.HostSample {
	var out []results.HostSample
	for _, r := range resources {
		if n := len(out); n == 0 || out[n-1].Time != r.Time {
			out = append(out, results.HostSample{Time: r.Time, Cores: 2, Harness: 0.05, Load1: r.Load1})
		}
		h := &out[len(out)-1]
		h.Testnet += r.CPU / 100
	}
	for i := range out {
		out[i].Testnet = math.Round(out[i].Testnet*1000) / 1000
		out[i].Busy = out[i].Testnet + out[i].Harness + 0.1
	}
	return out
}

// Nodes returns the synthetic nodes of in: the nodes of its adoption
// rows, following its blocks, sampled every second from 3 s before the
// load to 5 s after the last block.
func (in Records) Nodes() *Nodes {
	var names []string
	for _, a := range in.Adoption {
		if !slices.Contains(names, a.Node) {
			names = append(names, a.Node)
		}
	}
	slices.Sort(names)
	start := in.Run.LoadStart.UnixNano()
	end := in.Run.LoadEnd.UnixNano()
	last := in.Blocks[len(in.Blocks)-1].Time
	return &Nodes{Names: names, ChainID: "synthetic", From: start - 3*int64(time.Second), To: last + 5*int64(time.Second),
		Step: int64(time.Second), LoadStart: start, LoadEnd: end, TxSize: in.Run.Load.Size, Blocks: in.Blocks,
		Rejected: map[string]int{names[0]: 3}}
}
