package collect

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// Proc is one local node process to sample.
type Proc struct {
	Name string
	// PID returns the node's current process id (0 when it is not running);
	// a restarted node gets a new pid, and sampling follows it.
	PID func() int
	// DataDir is the node's data directory (<home>/data); "" for none.
	DataDir string
	// Harness marks cometlab's own process: its row in resources.csv is
	// not the testnet's, and its CPU is host.csv's harness CPU.
	Harness bool
}

// ResourceConfig configures a Resources sampler.
type ResourceConfig struct {
	// Interval between samples; 0 means 1 s.
	Interval time.Duration
	// DataInterval is the least time between two walks of a data directory;
	// 0 means adaptive: walk at most every Interval, and never spend more
	// than 0.01 % of a core per node walking (the next walk waits at least
	// 10,000 × the last walk's duration, so a directory that grows is
	// walked less often). Between walks, rows repeat the last size.
	DataInterval time.Duration
	// ProcDir is the proc file system; "" means /proc.
	ProcDir string
	// Host, when set, receives a host.csv row every sample: the whole
	// host's CPU beside the testnet's and the harness's (see
	// results.HostSample).
	Host *results.Writer
}

// ResourceStats counts the samples of one process. A failed sample (the
// process exited, or was never started) leaves a gap in its rows.
type ResourceStats struct {
	Node      string
	Samples   int64
	Failures  int64
	LastError string
}

// Resources samples every local node process at a fixed interval (CPU,
// RSS, open files, data-directory size, and the host's load1) and writes
// resources.csv.
type Resources struct {
	procs  []Proc
	cfg    ResourceConfig
	w      *results.Writer
	logger *slog.Logger
	page   int64
	// acct is how host busy time is counted: countNice counts the host's
	// time at a positive nice level as busy: only when cometlab (and so
	// the nodes it starts) runs niced itself. Otherwise that time is other
	// work that yields the CPU to the testnet (a nice-19 build gets ~1.5 %
	// of a core against a node), and is not a disturbance (busyTicks).
	// irqInTasks is the kernel's (irqChargedToTasks).
	acct accounting

	mu    sync.Mutex
	state []procState
	host  hostState
}

// hostState is what the previous sample of the host left.
type hostState struct {
	cpu  cpuStat
	at   time.Time
	have bool
}

// procState is what the previous sample of one process left.
type procState struct {
	ResourceStats
	pid      int
	start    uint64 // starttime of the process the baseline belongs to
	ticks    uint64
	at       time.Time
	data     int64
	dataAt   time.Time // last walk of the data dir
	dataCost time.Duration
	haveBase bool
	haveData bool
}

// NewResources returns a sampler of procs writing rows to w.
func NewResources(procs []Proc, cfg ResourceConfig, w *results.Writer, logger *slog.Logger) *Resources {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.ProcDir == "" {
		cfg.ProcDir = "/proc"
	}
	r := &Resources{procs: procs, cfg: cfg, w: w, logger: logger, page: int64(os.Getpagesize()), acct: accounting{countNice: ownNice() > 0, irqInTasks: irqChargedToTasks()}}
	for _, p := range procs {
		r.state = append(r.state, procState{ResourceStats: ResourceStats{Node: p.Name}})
	}
	return r
}

// Run samples until ctx ends, then flushes the writer. The first sample
// only sets each process's CPU baseline; rows start one interval later.
func (r *Resources) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	r.sample(time.Now())
	for {
		select {
		case <-ctx.Done():
			return r.w.Flush()
		case now := <-t.C:
			r.sample(now)
		}
	}
}

// Stats returns the sample counts of every process, in the order given.
func (r *Resources) Stats() []ResourceStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ResourceStats, len(r.state))
	for i, s := range r.state {
		out[i] = s.ResourceStats
	}
	return out
}

// sample reads every process once and writes a row for each that has a
// CPU baseline (load1 is -1 when /proc/loadavg cannot be read).
func (r *Resources) sample(now time.Time) {
	load1 := -1.0
	if b, err := os.ReadFile(filepath.Join(r.cfg.ProcDir, "loadavg")); err == nil {
		if v, err := parseLoad1(b); err == nil {
			load1 = v
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var testnet, harness float64 // cores, this interval
	for i, p := range r.procs {
		row, err := r.sampleOne(&r.state[i], p, now)
		st := &r.state[i]
		if err != nil {
			st.Failures++
			st.LastError = err.Error()
			r.logger.Debug("resource sample failed; a gap in this node's rows", "node", p.Name, "err", err)
			continue
		}
		if row == nil {
			continue // a new baseline
		}
		st.Samples++
		if p.Harness {
			harness += row.CPU / 100
		} else {
			testnet += row.CPU / 100
		}
		row.Load1 = load1
		if err := r.w.Write(row); err != nil {
			st.Failures++
			st.LastError = fmt.Sprintf("write resources: %v", err)
		}
	}
	if r.cfg.Host != nil {
		r.sampleHost(now, testnet, harness, load1)
	}
}

// sampleHost writes the host's row for the interval since its previous
// sample (none at the first, which only sets the baseline).
func (r *Resources) sampleHost(now time.Time, testnet, harness, load1 float64) {
	b, err := os.ReadFile(filepath.Join(r.cfg.ProcDir, "stat"))
	if err != nil {
		r.logger.Debug("host sample failed", "err", err)
		r.host.have = false
		return
	}
	cs, err := parseCPUStat(b)
	if err != nil {
		r.logger.Debug("host sample failed", "err", err)
		r.host.have = false
		return
	}
	prev := r.host
	r.host = hostState{cpu: cs, at: now, have: true}
	dt := now.Sub(prev.at).Seconds()
	p, c := prev.cpu, cs
	if !prev.have || dt <= 0 || c.user < p.user || c.system < p.system || c.nice < p.nice || c.idle < p.idle || c.irq < p.irq || c.steal < p.steal {
		return
	}
	row := results.HostSample{Time: now.UnixNano(), Cores: cs.cores, Busy: busyCores(p, c, dt, r.acct),
		Steal: float64(c.steal-p.steal) / userHZ / dt, Testnet: testnet, Harness: harness, Load1: load1}
	if err := r.cfg.Host.Write(&row); err != nil {
		r.logger.Debug("host sample not written", "err", err)
	}
}

func (r *Resources) sampleOne(st *procState, p Proc, now time.Time) (*results.Resource, error) {
	pid := 0
	if p.PID != nil {
		pid = p.PID()
	}
	if pid <= 0 {
		st.haveBase = false
		return nil, fmt.Errorf("%s: not running", p.Name)
	}
	dir := filepath.Join(r.cfg.ProcDir, strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		st.haveBase = false
		return nil, fmt.Errorf("%s (pid %d) gone: %w", p.Name, pid, err)
	}
	ps, err := parseProcStat(b)
	if err != nil {
		st.haveBase = false
		return nil, fmt.Errorf("%s (pid %d): %w", p.Name, pid, err)
	}
	if ps.State == 'Z' || ps.State == 'X' {
		st.haveBase = false
		return nil, fmt.Errorf("%s (pid %d) exited", p.Name, pid)
	}
	fds, err := countDir(filepath.Join(dir, "fd"))
	if err != nil {
		st.haveBase = false
		return nil, fmt.Errorf("%s (pid %d) fds: %w", p.Name, pid, err)
	}
	r.walkData(st, p, now)
	if !st.haveBase || st.pid != pid || st.start != ps.StartTime {
		// First sight of this process (or the pid now names another one):
		// the CPU baseline starts here.
		st.pid, st.start, st.ticks, st.at, st.haveBase = pid, ps.StartTime, ps.CPUTicks, now, true
		return nil, nil
	}
	row := &results.Resource{Time: now.UnixNano(), Node: p.Name, CPU: cpuPercent(st.ticks, ps.CPUTicks, now.Sub(st.at)),
		RSS: ps.RSSPages * r.page, OpenFiles: fds, DataBytes: st.data}
	st.ticks, st.at = ps.CPUTicks, now
	return row, nil
}

// walkData refreshes the data-directory size when it is due.
func (r *Resources) walkData(st *procState, p Proc, now time.Time) {
	// Half an interval of slack: ticks are not exactly an interval apart.
	if p.DataDir == "" || (st.haveData && now.Sub(st.dataAt)+r.cfg.Interval/2 < dataWalkEvery(r.cfg, st.dataCost)) {
		return
	}
	start := time.Now()
	n, err := DirSize(p.DataDir)
	st.dataCost = time.Since(start)
	st.dataAt = now
	if err != nil {
		r.logger.Debug("data directory size", "node", p.Name, "dir", p.DataDir, "err", err)
		return
	}
	st.data, st.haveData = n, true
}

// dataWalkEvery is the least time between two walks of a data directory
// whose last walk took cost (see ResourceConfig.DataInterval).
func dataWalkEvery(cfg ResourceConfig, cost time.Duration) time.Duration {
	if cfg.DataInterval > 0 {
		return cfg.DataInterval
	}
	return max(cfg.Interval, 10000*cost)
}
