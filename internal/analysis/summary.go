package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// Input is what Summarize reads: the records of one run directory.
type Input struct {
	// Run is run.json, its load as the host sent it: at a time scale k
	// (Run.TimeScale) run.json records the model's load, and ReadFiles
	// gives Load.HostTime(k), so that the load and the records (every
	// CSV, in the host's time) agree. Summarize computes every figure in
	// the host's time and turns them into the model's once, at its end
	// (ToModel).
	Run      results.Run
	Sent     []results.Sent
	Replies  []results.Reply
	Txs      []results.Tx
	Blocks   []results.Block
	Adoption []results.Adoption

	// Metrics holds the node series of metrics.csv that the figures use
	// (see ReadSeries); nil when the file was not read.
	Metrics *SeriesSet
	// Resources holds the rows of resources.csv.
	Resources []results.Resource
	// Events holds the rows of events.csv (nil for a run without one).
	Events []results.Event
	// Host holds the rows of host.csv (nil for a run without one).
	Host []results.HostSample
	// Mempool holds the rows of mempool.csv, each node's mempool right
	// after each of its commits (nil for a run without one).
	Mempool []results.MempoolSample
	// CommitCPU holds the rows of commitcpu.csv, each local process's CPU
	// time at each of its node's commits (nil for a run without one).
	CommitCPU []results.CommitCPU
	// TxResults holds the rows of tx_results.csv, the app's verdict on
	// each committed transaction (nil for a run without one).
	TxResults []results.TxResult
	// Precommits holds the rows of precommits.csv (nil for a run without
	// one).
	Precommits []results.Precommit
	// Hashes holds the rows of hashes.csv (nil for a run without one:
	// then the nodes' agreement is not checked); Evidence those of
	// evidence.csv; Validators maps validator addresses to node names
	// (results.ValidatorNames).
	Hashes     []results.HashRow
	Evidence   []results.Evidence
	Validators map[string]string
	// Logs holds the scan of every node log (ScanLogs); nil when the run
	// directory has no logs/.
	Logs []LogFile

	// Tx holds the aggregates of sent.csv, replies.csv and txs.csv when
	// they were streamed (ReadStream), leaving Sent, Replies and Txs nil;
	// when Tx is nil, Summarize and the report aggregate those slices
	// (see Aggregates).
	Tx *TxAggregates

	// Missing names the optional files of the run directory that were not
	// there (results.RepliesFile, results.TxsFile, results.BlocksFile,
	// results.AdoptionFile, results.MetricsFile, results.ResourceFile):
	// nothing was gathered, which is not the same as gathering no rows.
	// Figures that need a missing file are left out.
	Missing []string
}

// Summary is summary.json: a run's figures keyed by metric-dictionary id.
type Summary struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
	// TimeScale is the run's time scale k when it is not 1 (run.json's
	// time_scale): the figures below were turned into model time
	// (ToModel). Absent for a run in real time.
	TimeScale float64 `json:"time_scale,omitempty"`
	// TimeScaleAuto is how time_scale = "auto" chose TimeScale (run.json's
	// time_scale_auto); absent for a k given as a number.
	TimeScaleAuto *results.TimeScaleAuto `json:"time_scale_auto,omitempty"`

	// Metrics holds every figure that could be computed, keyed by
	// dictionary id, in the dictionary's unit. Figures that could not be
	// computed are absent (never NaN or Inf) and a Note says why.
	Metrics map[string]float64 `json:"metrics"`

	// Rejected counts rejected transactions by the reply's error message
	// (or "code N" when the reply had none); nil when none was rejected.
	Rejected map[string]int64 `json:"rejected,omitempty"`

	// Refused counts the transactions a gateway refused (a reply whose
	// code is a refusal, see results.IsRefusal: the sentinel's limits) by
	// message; nil when none was refused.
	Refused map[string]int64 `json:"refused,omitempty"`

	// Clients holds each load client's accounting and latency, in the
	// order of run.json load.clients; absent for a load of one client.
	Clients []ClientSummary `json:"clients,omitempty"`

	// Lanes holds each mempool lane's transactions and latency, in the
	// order of run.json load.lanes; absent for a load without lanes.
	Lanes []LaneSummary `json:"lanes,omitempty"`

	// AppVerdicts is what the app said of the run's committed
	// transactions (tx_results.csv); absent for a run without that file.
	AppVerdicts *AppVerdicts `json:"app_verdicts,omitempty"`

	// Nodes holds the per-node figures (dictionary entries with PerNode
	// set), keyed by node name, then by dictionary id.
	Nodes map[string]map[string]float64 `json:"nodes,omitempty"`

	// Perturbations holds each perturbation of events.csv with its
	// recovery figures (dictionary entries with PerPerturbation set).
	Perturbations []PerturbationSummary `json:"perturbations,omitempty"`

	// Safety is the safety check (see Safety).
	Safety *Safety `json:"safety,omitempty"`

	// Injected is the evidence the run injected (the evidence key), each
	// with the block that committed it.
	Injected []Injected `json:"injected,omitempty"`

	// CatchUps holds each ephemeral node's sync from its start to its
	// caught-up event (a rotation run).
	CatchUps []CatchUp `json:"catch_ups,omitempty"`

	// Anomalies are plain sentences about what went wrong in the run
	// itself: transactions rejected, missing or duplicated, mempools not
	// back to empty after the load, nodes that fell behind, gaps in a
	// node's series (a node without a metrics endpoint, or one that died).
	// The worst come first: a node that died on its own, a node that fell
	// behind, sent transactions lost (rejected or missing), then the rest,
	// each group in the order found.
	Anomalies []string `json:"anomalies,omitempty"`

	// Issues are plain sentences, worst first, about what the run
	// discovered that makes its first line: a node that panicked, a
	// consensus failure, a node that crashed (see Findings.Alarms and
	// findings.json); each names its nodes and quotes its first line.
	Issues []string `json:"issues,omitempty"`

	// Notes are plain sentences about the data: missing files, skipped
	// rows, figures left out and why.
	Notes []string `json:"notes,omitempty"`

	// Autopsy holds a verdict for each slow height, in height order
	// (autopsy.csv; docs/autopsy.md).
	Autopsy []Verdict `json:"autopsy,omitempty"`
	// SlowStages holds the stage breakdown (stages.csv) of the slow
	// heights, in height order.
	SlowStages []SlowStage `json:"slow_stages,omitempty"`
}

// Metric returns the value of the metric id and whether it was computed.
func (s Summary) Metric(id string) (float64, bool) {
	v, ok := s.Metrics[id]
	return v, ok
}

// Aggregates returns in.Tx, or the aggregates of in.Sent, in.Replies and
// in.Txs when in.Tx is nil.
func (in Input) Aggregates() *TxAggregates {
	if in.Tx != nil {
		return in.Tx
	}
	return AggregateTxs(in)
}

// Summarize computes a run's summary from its records. It is pure: the
// same Input always gives the same Summary (including the order of Notes).
// It runs in O(n) for n transactions, in memory bounded but for a few
// bytes per send (see TxAggregates); percentiles are exact up to
// DefaultExactCap transactions and within a Sketch's error bound past it.
func Summarize(in Input) Summary {
	s, _ := summarize(in)
	return s
}

// summarize is Summarize, also returning the stage breakdown (Stages) its
// stage figures came from, nil without blocks.csv, so that stages.csv is
// written from the same computation (AnalyzeInput).
func summarize(in Input) (Summary, []results.Stage) {
	agg := in.Aggregates()
	in.Tx = agg // the autopsy reads it too
	s := Summary{RunID: in.Run.ID, Status: in.Run.Status, Metrics: map[string]float64{}}
	b := &builder{s: &s}
	missing := map[string]bool{}
	for _, f := range in.Missing {
		missing[f] = true
		b.note("%s not found: nothing was gathered for it", f)
	}

	start := loadStart(in, b)
	acc := account(agg, in.Run, b, missing[results.RepliesFile])
	if missing[results.TxsFile] {
		b.note("without %s every sent transaction counts as missing", results.TxsFile)
	}
	lastCommit := latency(agg, in.Run, b, missing[results.AdoptionFile])
	throughput(in, b, acc.committed, start, lastCommit)
	blocks(in, b, start, missing[results.BlocksFile])
	autopsyFigures(in, b, missing[results.BlocksFile])
	var stages []results.Stage
	if !missing[results.BlocksFile] {
		stages = Stages(in)
		stageFigures(stages, b)
	}
	expectedMulti := absentFigures(in, b)
	knee(in, agg, b, start, missing[results.BlocksFile])

	if len(acc.reasons) > 0 {
		s.Rejected = acc.reasons
	}
	if len(acc.refusals) > 0 {
		s.Refused = acc.refusals
	}
	finishClients(agg, in.Run, acc.clients)
	s.Clients = acc.clients
	s.Lanes = laneSummaries(agg, in.Run)
	appFigures(in, &s, b)
	s.Safety = safety(in, b, acc.lostAcked, in.Hashes == nil)
	accountingAnomalies(b)
	clientAnomalies(b, s.Clients)
	evidenceFigures(in, b)
	moreBlocks(in, b, missing[results.BlocksFile], expectedMulti)

	nodes := RunNodes(in)
	from, to := loadWindow(in, start)
	adoption(in, b, missing[results.AdoptionFile], missing[results.BlocksFile])
	metricFigures(in, b, nodes, start, from, to)
	resourceFigures(in, b, RunProcesses(in), from, to)
	hostFigures(in, b, from, to)
	harnessFigures(in, b)
	gapAnomalies(in, b, nodes, start)
	trendFigures(in, agg, b)
	eventFigures(in, b, start)
	logFigures(in, b)
	b.sortAnomalies()
	ToModel(&s, in.Run.Scale()) // the one turn into model time
	s.TimeScaleAuto = in.Run.TimeScaleAuto
	stagesToModel(stages, in.Run.Scale())
	return s, stages
}

// builder collects metrics and notes, keeping NaN and Inf out.
type builder struct {
	s   *Summary
	sev []severity // of each anomaly of s, by index
}

// severity ranks anomalies, worst first.
type severity int

const (
	severeExit   severity = iota // a node died on its own
	severeBehind                 // a node fell behind
	severeTxs                    // sent transactions lost: rejected or missing
	severeOther                  // the rest
)

// put records v under id, or a note saying why id is left out when v is
// NaN or Inf.
func (b *builder) put(id string, v float64, why string) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		b.note("%s not computed: %s", id, why)
		return
	}
	b.s.Metrics[id] = v
}

// putNode records node's value v of the per-node figure id; NaN and Inf
// are left out.
func (b *builder) putNode(node, id string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if b.s.Nodes == nil {
		b.s.Nodes = map[string]map[string]float64{}
	}
	if b.s.Nodes[node] == nil {
		b.s.Nodes[node] = map[string]float64{}
	}
	b.s.Nodes[node][id] = v
}

func (b *builder) note(format string, a ...any) {
	b.s.Notes = append(b.s.Notes, fmt.Sprintf(format, a...))
}

func (b *builder) anomaly(format string, a ...any) { b.anomalyOf(severeOther, format, a...) }

func (b *builder) anomalyOf(sev severity, format string, a ...any) {
	for len(b.sev) < len(b.s.Anomalies) {
		b.sev = append(b.sev, severeOther)
	}
	b.s.Anomalies = append(b.s.Anomalies, fmt.Sprintf(format, a...))
	b.sev = append(b.sev, sev)
}

// sortAnomalies puts the worst anomalies first, keeping the order found
// within each severity.
func (b *builder) sortAnomalies() {
	type ranked struct {
		sev  severity
		text string
	}
	rs := make([]ranked, len(b.s.Anomalies))
	for i, a := range b.s.Anomalies {
		rs[i] = ranked{severeOther, a}
		if i < len(b.sev) {
			rs[i].sev = b.sev[i]
		}
	}
	slices.SortStableFunc(rs, func(x, y ranked) int { return cmp.Compare(x.sev, y.sev) })
	for i, r := range rs {
		b.s.Anomalies[i] = r.text
		if i < len(b.sev) {
			b.sev[i] = r.sev
		}
	}
}

// LoadStart returns the load's start (Unix ns) from run.json, falling back
// to the first scheduled send; 0 when neither is known.
func (in Input) LoadStart() int64 {
	if !in.Run.LoadStart.IsZero() {
		return in.Run.LoadStart.UnixNano()
	}
	if in.Tx != nil {
		return in.Tx.firstIntended
	}
	var first int64
	for i := range in.Sent {
		if t := in.Sent[i].Intended; t > 0 && (first == 0 || t < first) {
			first = t
		}
	}
	return first
}

// loadStart is in.LoadStart, with a note when run.json does not say.
func loadStart(in Input, b *builder) int64 {
	start := in.LoadStart()
	switch {
	case !in.Run.LoadStart.IsZero():
	case start == 0:
		b.note("run.json has no load_start and no send has a scheduled time: per-second figures not computed")
	default:
		b.note("run.json has no load_start: using the first scheduled send, %s", time.Unix(0, start).UTC().Format(time.RFC3339Nano))
	}
	return start
}

// commitTime is when a transaction's block was committed: the time of
// block Height+1, or its own block's time when that is not known.
func commitTime(t *results.Tx) int64 {
	if t.CommitTime != 0 {
		return t.CommitTime
	}
	return t.BlockTime
}

// latency puts the block and observed latency figures and returns the last
// commit time (Unix ns) of a run transaction, 0 if none.
func latency(a *TxAggregates, run results.Run, b *builder, noAdoption bool) int64 {
	if a.noCommit > 0 {
		b.note("%d committed transactions have no commit time (block H+1 was not walked): left out of block latency", a.noCommit)
	}
	if a.negative > 0 {
		b.note("%d transactions have a negative block latency (payload time after the commit time): check the clocks", a.negative)
	}
	if a.duplicates > 0 {
		b.note("block latency leaves out duplicate commits (%d); CometBFT's loadtime report counts them", a.duplicates)
	}
	const why = "no committed transaction with a commit time"
	d := a.Block.Describe()
	b.put("block_latency_min_ms", d.Min/results.NsPerMs, why)
	b.put("block_latency_mean_ms", d.Mean/results.NsPerMs, why)
	b.put("block_latency_stddev_ms", d.StdDev/results.NsPerMs, "fewer than 2 committed transactions")
	for _, p := range []struct {
		id string
		p  float64
	}{{"block_latency_p50_ms", 50}, {"block_latency_p90_ms", 90}, {"block_latency_p95_ms", 95}, {"block_latency_p99_ms", 99}} {
		b.put(p.id, d.Percentile(p.p)/results.NsPerMs, why)
	}
	b.put("block_latency_max_ms", d.Max/results.NsPerMs, why)

	observed(a, run, b, noAdoption)
	return a.lastCommit
}

// observed puts the observed latency figures: adoption time of the tx's
// height at the target node − send time.
func observed(a *TxAggregates, run results.Run, b *builder, noAdoption bool) {
	if noAdoption {
		return
	}
	if a.target.empty() {
		b.note("adoption.csv has no rows for the target node %q: observed latency not computed", run.Target)
		return
	}
	if a.obsSkipped > 0 {
		b.note("%d committed transactions are in heights without an adoption row for the target node %q: left out of observed latency", a.obsSkipped, run.Target)
	}
	const why = "no committed transaction in a height adopted by the target node"
	d := a.Observed.Describe()
	b.put("observed_latency_p50_ms", d.Percentile(50)/results.NsPerMs, why)
	b.put("observed_latency_p99_ms", d.Percentile(99)/results.NsPerMs, why)
	b.put("observed_latency_max_ms", d.Max/results.NsPerMs, why)
}
