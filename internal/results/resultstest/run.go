package resultstest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// Spec describes a synthetic run. Zero fields take the defaults noted.
type Spec struct {
	ID          string    // default a fixed UUID
	Start       time.Time // load start; default 2025-03-14 10:00:00 UTC
	Nodes       int       // validators validator00 …; default 4
	Connections int       // default 1
	Rate        float64   // tx/s per connection; default 20
	Duration    time.Duration
	Size        int           // bytes per tx; default 1024
	Interval    time.Duration // between blocks; default 1 s
	Scrape      time.Duration // sampling interval of metrics and resources; default 1 s
	Before      time.Duration // sampling before the load; default 5 s
	After       time.Duration // sampling after the load (the drain); default 10 s

	// Every n-th send (counting from 1 over all connections) has that
	// fate; 0 means never.
	RejectEvery, MissingEvery, DuplicateEvery, UnsentEvery, NoReplyEvery int
	// MultiRoundEvery makes every n-th block need a second round.
	MultiRoundEvery int

	Stop map[string]time.Duration // node → when it dies, since the load start
	// Down gives nodes that are down in windows [from, to) since the load
	// start (see Nodes.Down); Events are written to events.csv as given,
	// times since the load start in At (none: no events.csv).
	Down      map[string][][2]time.Duration
	Events    []results.Event
	NoMetrics []string       // nodes without a metrics endpoint
	Leftover  map[string]int // node → txs left in its mempool after the load

	// MaxPeers caps each node's peers as CometBFT's peer limits do (see
	// Nodes.MaxPeers); 0 means a full mesh.
	MaxPeers int
	// Scale multiplies the generator's own times (a send's lag, the wait
	// of a transaction for its block, a second round): the records of a
	// run made at time scale Scale, whose Interval, Duration, Before,
	// After and Scrape the caller scales too. 0 means 1.
	Scale float64
	// Slow names nodes that are clearly slower than the rest: later
	// commits, more CPU, memory and disk (Nodes.Skew 15, 12, 9, … in
	// this order). Past SpreadNodes nodes every node's skew is spread at
	// random over [0, 3) rather than growing with its index.
	Slow []string
}

// SpreadNodes is the node count past which WriteRun spreads the nodes'
// skews at random (a testnet of hundreds of nodes whose last node is
// not hundreds of times slower than its first).
const SpreadNodes = 12

// skews returns the Nodes.Skew of the run: nil (the node's index) up to
// SpreadNodes nodes without slow ones.
func (s Spec) skews(names []string) []float64 {
	if len(names) <= SpreadNodes && len(s.Slow) == 0 {
		return nil
	}
	out := make([]float64, len(names))
	for i := range out {
		out[i] = float64(i)
		if len(names) > SpreadNodes {
			out[i] = 3 * jitter(int64(i), 11)
		}
	}
	for k, n := range s.Slow {
		if i := slices.Index(names, n); i >= 0 {
			out[i] = float64(15 - 3*k)
		}
	}
	return out
}

func (s *Spec) defaults() {
	if s.ID == "" {
		s.ID = "6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5"
	}
	if s.Start.IsZero() {
		s.Start = time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Nodes, 4)
	def(&s.Connections, 1)
	def(&s.Size, 1024)
	if s.Rate == 0 {
		s.Rate = 20
	}
	dur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	dur(&s.Duration, time.Minute)
	dur(&s.Interval, time.Second)
	dur(&s.Scrape, time.Second)
	dur(&s.Before, 5*time.Second)
	dur(&s.After, 10*time.Second)
	if s.Scale == 0 {
		s.Scale = 1
	}
}

// scaled is d × s.Scale, in ns.
func (s Spec) scaled(d int64) int64 { return int64(float64(d) * s.Scale) }

// Manifest returns the resolved manifest of the run spec s describes.
func (s Spec) Manifest() string {
	s.defaults()
	return fmt.Sprintf(`# Resolved manifest of a synthetic run: every default filled in.
name = "synthetic"
cometbft_version = "v0.40.0"
app = "kvstore"
validators = %d
log_level = "state:info,*:error"

[load]
connections = %d
rate = %s
size = %d
duration = "%s"
pacing = "even"
target = "validator00"
drain_timeout = "60s"
late_threshold = "10ms"
`, s.Nodes, s.Connections, strconv.FormatFloat(s.Rate, 'g', -1, 64), s.Size, s.Duration)
}

// WriteRun writes the run s describes into dir, streaming the large files,
// and returns its run.json.
func WriteRun(dir string, s Spec) (results.Run, error) {
	s.defaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return results.Run{}, err
	}
	start := s.Start.UnixNano()
	loadEnd := start + int64(s.Duration)
	run := results.Run{
		ID: s.ID, Status: results.StatusComplete, CometlabVersion: "v0.1.0", CometBFTVersion: "v0.40.0", App: "kvstore",
		Host:   results.Host{Hostname: "qa-01", OS: "linux", Arch: "amd64", CPUs: 8, MemBytes: 16 << 30, Kernel: "6.8.0-45-generic", Go: "go1.26.8"},
		Load:   results.Load{Connections: s.Connections, Rate: s.Rate, Size: s.Size, DurationS: s.Duration.Seconds(), Pacing: "even", LateThreshold: 0.01},
		Target: "validator00", Endpoint: "ws://127.0.0.1:26657/websocket",
		Started: s.Start.Add(-s.Before - 5*time.Second), LoadStart: s.Start, LoadEnd: s.Start.Add(s.Duration), Ended: s.Start.Add(s.Duration + s.After + 3*time.Second),
	}
	var names []string
	for i := range s.Nodes {
		name := fmt.Sprintf("validator%02d", i)
		names = append(names, name)
		metrics := fmt.Sprintf("http://127.0.0.1:%d", 26660+10*i)
		for _, n := range s.NoMetrics {
			if n == name {
				metrics = ""
			}
		}
		run.Nodes = append(run.Nodes, results.Node{Name: name, Mode: "validator", Version: "v0.40.0",
			RPC: fmt.Sprintf("http://127.0.0.1:%d", 26657+10*i), P2P: fmt.Sprintf("%040x@127.0.0.1:%d", 0xc0de+i, 26656+10*i), Metrics: metrics, Home: "nodes/" + name})
	}

	from, to := start-int64(s.Before), loadEnd+int64(s.After)
	blocks := s.chain(names, from, to)
	times := make([]int64, len(blocks))
	for k := range blocks {
		times[k] = blocks[k].Time
	}
	if err := writeTxs(dir, s, start, blocks, times); err != nil {
		return run, err
	}
	first := sort.Search(len(blocks), func(k int) bool { return blocks[k].Time >= start-int64(s.Interval) })
	run.FirstHeight, run.LastHeight = blocks[first].Height, blocks[len(blocks)-1].Height

	nodes := &Nodes{Names: names, ChainID: "synthetic", From: from, To: to, Step: int64(s.Scrape),
		LoadStart: start, LoadEnd: loadEnd, TxSize: s.Size, Blocks: blocks,
		NoMetrics: s.NoMetrics, Leftover: s.Leftover, Rejected: map[string]int{}, Stop: map[string]int64{},
		Skew: s.skews(names), MaxPeers: s.MaxPeers}
	for n, d := range s.Stop {
		nodes.Stop[n] = start + int64(d)
	}
	if len(s.Down) > 0 {
		nodes.Down = map[string][][2]int64{}
		for n, ws := range s.Down {
			for _, w := range ws {
				nodes.Down[n] = append(nodes.Down[n], [2]int64{start + int64(w[0]), start + int64(w[1])})
			}
		}
	}
	if len(s.Events) > 0 {
		ev := make([]results.Event, len(s.Events))
		for i, e := range s.Events {
			ev[i] = e
			ev[i].At += start
		}
		if err := writeRows(filepath.Join(dir, results.EventsFile), results.EventsHeader, ev); err != nil {
			return run, err
		}
	}
	if s.RejectEvery > 0 {
		nodes.Rejected["validator00"] = s.Connections * int(s.Rate*s.Duration.Seconds()) / s.RejectEvery
	}
	if err := writeRows(filepath.Join(dir, results.BlocksFile), results.BlocksHeader, blocks); err != nil {
		return run, err
	}
	if err := writeRows(filepath.Join(dir, results.AdoptionFile), results.AdoptionHeader, nodes.Adoption()); err != nil {
		return run, err
	}
	resources, err := writeSeries(dir, nodes)
	if err != nil {
		return run, err
	}
	if err := writeRows(filepath.Join(dir, results.HostFile), results.HostHeader, HostOf(resources)); err != nil {
		return run, err
	}
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(s.Manifest()), 0o644); err != nil {
		return run, err
	}
	return run, results.WriteJSON(filepath.Join(dir, results.RunFile), run)
}

// writeTxs writes sent.csv, replies.csv and txs.csv, and counts each
// block's transactions into blocks.
func writeTxs(dir string, s Spec, start int64, blocks []results.Block, times []int64) (err error) {
	var ws [3]*results.Writer
	for i, f := range []struct{ name, header string }{
		{results.SentFile, results.SentHeader}, {results.RepliesFile, results.RepliesHeader}, {results.TxsFile, results.TxsHeader},
	} {
		if ws[i], err = results.Create(filepath.Join(dir, f.name), f.header); err != nil {
			return err
		}
		defer func() {
			if cerr := ws[i].Close(); err == nil {
				err = cerr
			}
		}()
	}
	period := float64(time.Second) / s.Rate
	perConn := int(s.Rate * s.Duration.Seconds())
	every := func(n, e int) bool { return e > 0 && n%e == 0 }
	n := 0
	var sent results.Sent
	var reply results.Reply
	var tx results.Tx
	for seq := range perConn {
		for c := range s.Connections {
			n++
			intended := start + int64(float64(seq)*period+float64(c)*period/float64(s.Connections))
			lag := s.scaled(int64((0.1 + 1.4*jitter(int64(n), 1)) * float64(ms)))
			if jitter(int64(n), 2) < 0.001 {
				lag += s.scaled(40 * ms) // a late send now and then
			}
			sent = results.Sent{Conn: c, Seq: uint64(seq), Intended: intended, Actual: intended + lag, Size: s.Size}
			if every(n, s.UnsentEvery) {
				sent.Actual, sent.Err = 0, "write tcp 127.0.0.1:51234->127.0.0.1:26657: write: broken pipe"
			}
			if err := ws[0].Write(&sent); err != nil {
				return err
			}
			if sent.Err != "" {
				continue
			}
			reply = results.Reply{Conn: c, Seq: sent.Seq, At: sent.Actual + s.scaled(2*ms), OK: true, Hash: fmt.Sprintf("%064X", n)}
			if every(n, s.RejectEvery) {
				reply.OK, reply.Code, reply.Message, reply.Hash = false, -32603, "Internal error: mempool is full: number of txs 5000 (max: 5000)", ""
			}
			if !every(n, s.NoReplyEvery) {
				if err := ws[1].Write(&reply); err != nil {
					return err
				}
			}
			if !reply.OK || every(n, s.MissingEvery) {
				continue
			}
			k := sort.Search(len(times), func(k int) bool { return times[k] >= sent.Actual+s.scaled(150*ms) })
			if k+1 >= len(blocks) {
				continue // after the last committed block: missing
			}
			tx = results.Tx{Conn: c, Seq: sent.Seq, Sent: sent.Actual, Height: blocks[k].Height, Index: blocks[k].Txs,
				BlockTime: blocks[k].Time, CommitTime: blocks[k].CommitTime}
			blocks[k].Txs++
			blocks[k].RunTxs++
			blocks[k].Bytes += int64(s.Size)
			if err := ws[2].Write(&tx); err != nil {
				return err
			}
			if every(n, s.DuplicateEvery) && k+2 < len(blocks) {
				k++
				tx.Height, tx.Index, tx.BlockTime, tx.CommitTime, tx.Duplicate = blocks[k].Height, blocks[k].Txs, blocks[k].Time, blocks[k].CommitTime, true
				blocks[k].Txs++
				blocks[k].RunTxs++
				blocks[k].Bytes += int64(s.Size)
				if err := ws[2].Write(&tx); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// writeRows writes rows to the CSV file path with the results package's
// writer.
func writeRows[T any, P interface {
	*T
	results.Record
}](path, header string, rows []T) error {
	w, err := results.Create(path, header)
	if err != nil {
		return err
	}
	for i := range rows {
		if err := w.Write(P(&rows[i])); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// chain is the synthetic chain: a block every interval (±5 %) from
// before from to after to, proposers in turn; a multi-round block's
// commit comes 1.5 s later. Each block's commit time is the next's time.
func (s Spec) chain(names []string, from, to int64) []results.Block {
	var blocks []results.Block
	h := int64(100)
	for t := from - s.scaled(300*ms); t <= to+2*int64(s.Interval); h++ {
		b := results.Block{Height: h, Time: t, Proposer: names[int(h)%len(names)]}
		if s.MultiRoundEvery > 0 && h%int64(s.MultiRoundEvery) == 0 {
			b.Round = 1
		}
		blocks = append(blocks, b)
		t += int64(float64(s.Interval) * (0.95 + 0.1*jitter(h, 7)))
		if b.Round > 0 {
			t += s.scaled(1500 * ms)
		}
	}
	for k := range blocks[:len(blocks)-1] {
		blocks[k].CommitTime = blocks[k+1].Time
	}
	return blocks
}

// writeSeries writes the nodes' metrics.csv and resources.csv and returns
// the resources written (for host.csv).
func writeSeries(dir string, nodes *Nodes) ([]results.Resource, error) {
	mw, err := results.Create(filepath.Join(dir, results.MetricsFile), results.MetricsHeader)
	if err != nil {
		return nil, err
	}
	rw, err := results.Create(filepath.Join(dir, results.ResourceFile), results.ResourcesHeader)
	if err != nil {
		return nil, err
	}
	var resources []results.Resource
	err = nodes.Generate(func(m *results.Metric) error { return mw.Write(m) }, func(r *results.Resource) error {
		resources = append(resources, *r)
		return rw.Write(r)
	})
	if cerr := mw.Close(); err == nil {
		err = cerr
	}
	if cerr := rw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return resources, nil
}
