package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// HostsDir is the directory of a run from load hosts that holds each
// host's own send log (HOST/sent.csv, replies.csv, run.json), the
// playbook's variables and its output.
const HostsDir = "hosts"

// DefaultStartLead is how far ahead of now the load hosts' common start
// time is set: time for ansible-playbook to reach every host and start
// `cometlab load` there.
const DefaultStartLead = 15 * time.Second

// LoadHosts configure a load sent from the load hosts of a deployed
// testnet (`cometlab load --testnet DIR` of a manifest with [load] hosts).
type LoadHosts struct {
	// Dir is the deployed testnet's directory: its inventory and load.yml.
	Dir string
	// Hosts are the load hosts, in the manifest's order.
	Hosts []string
	// SSH reaches every host of the testnet (load hosts and node hosts),
	// whose clocks are measured before the load.
	SSH []deploy.SSH
	// Roles say what each host runs ("load", "validators", "nodes",
	// comma-separated), by host name.
	Roles map[string]string
	// StartLead is how far ahead the common start time is set; 0 means
	// DefaultStartLead.
	StartLead time.Duration
}

// clockSamples is how many round trips measure each host's clock.
const clockSamples = 10

// clockParallel bounds the hosts whose clocks are measured at once: a
// round trip's bound is half its duration, which hundreds of ssh
// sessions sharing the control host's cores would lengthen.
const clockParallel = 16

// measureClocks measures every host's clock offset, clockParallel hosts
// at a time; an error names each host that could not be measured.
func measureClocks(ctx context.Context, hosts []deploy.SSH, roles map[string]string) ([]results.Clock, map[string]time.Duration, error) {
	clocks := make([]deploy.Clock, len(hosts))
	errs := make([]error, len(hosts))
	var g errgroup.Group
	g.SetLimit(clockParallel)
	for i, h := range hosts {
		g.Go(func() error {
			clocks[i], errs[i] = deploy.MeasureClock(ctx, h, clockSamples)
			return nil // every host's error, joined below
		})
	}
	_ = g.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	out, offsets := make([]results.Clock, 0, len(hosts)), map[string]time.Duration{}
	for _, c := range clocks {
		out = append(out, results.Clock{Host: c.Host, Role: roles[c.Host], OffsetNs: int64(c.Offset), UncertaintyNs: int64(c.Uncertainty)})
		offsets[c.Host] = c.Offset
	}
	return out, offsets, nil
}

// remoteLoad is the load of a run sent from load hosts (a loadRunner):
// load.yml starts `cometlab load` on each at one start time, each with
// its share of the connections, and fetches their send logs, which are
// then merged into the run's sent.csv and replies.csv.
type remoteLoad struct {
	cfg      LoadHosts
	rd       *runDir
	run      deploy.LoadRun
	startAt  time.Time // by this host's clock
	late     time.Duration
	sent     *results.Writer
	replies  *results.Writer
	mu       sync.Mutex
	stats    load.Stats
	hostRecs []results.LoadHost
	// hard is the run's context for what follows an interrupt (a second
	// interrupt ends it): the stop of the hosts' loads runs under it.
	hard context.Context
}

// newRemoteLoad prepares the load of w from the load hosts: the hosts'
// clocks are measured, the start time set StartLead ahead and the load's
// manifest written into the run directory.
func newRemoteLoad(ctx context.Context, cfg LoadHosts, rd *runDir, id, endpoint string, w manifest.Workload,
	sent, replies *results.Writer) (*remoteLoad, []results.Clock, error) {
	w.Hosts = cfg.Hosts
	if ps := w.LoadHostsProblems(len(cfg.Hosts)); len(ps) > 0 {
		return nil, nil, exitcode.With(errors.New(strings.Join(ps, "; ")), exitcode.Usage)
	}
	clocks, offsets, err := measureClocks(ctx, cfg.SSH, cfg.Roles)
	if err != nil {
		return nil, nil, err
	}
	dir := rd.path(HostsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	text, err := manifest.EncodeLoad(w)
	if err != nil {
		return nil, nil, err
	}
	manPath := filepath.Join(dir, "load.toml")
	if err := os.WriteFile(manPath, text, 0o644); err != nil {
		return nil, nil, err
	}
	lead := cfg.StartLead
	if lead <= 0 {
		lead = DefaultStartLead
	}
	r := &remoteLoad{cfg: cfg, rd: rd, startAt: time.Now().Add(lead), late: w.LateThreshold, sent: sent, replies: replies,
		run: deploy.LoadRun{ID: id, Endpoint: endpoint, Manifest: manPath, Collect: dir, Hosts: map[string]deploy.LoadShare{}}}
	offs, conns := w.HostShares()
	for i, h := range cfg.Hosts {
		at := r.startAt.Add(offsets[h])
		r.run.Hosts[h] = deploy.LoadShare{Connections: conns[i], ConnOffset: offs[i], StartAt: at.Format(time.RFC3339Nano)}
		r.hostRecs = append(r.hostRecs, results.LoadHost{Name: h, FirstConn: offs[i], Connections: conns[i]})
	}
	return r, clocks, nil
}

// Run runs load.yml and merges what every host's load sent, also when
// some failed: their errors are joined.
func (r *remoteLoad) Run(ctx context.Context) error {
	vars := r.rd.path(filepath.Join(HostsDir, "load.json"))
	if err := deploy.WriteLoadRun(vars, r.run); err != nil {
		return err
	}
	runErr := deploy.Playbook(ctx, r.cfg.Dir, deploy.LoadBook, vars, nil)
	r.keepLog(deploy.LoadBook, "ansible-playbook.log")
	if ctx.Err() != nil {
		// Interrupted: ending ansible-playbook does not end the loads it
		// started, which would send until their duration is over (and
		// keep the drain waiting); stop them and fetch their send logs.
		if err := r.stop(vars); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("stopping the load hosts' loads (testnet down --hosts stops them): %w", err))
		}
	}
	return errors.Join(runErr, r.merge(runErr))
}

// stop runs load-stop.yml for an interrupted load: each host's load is
// interrupted (it writes its send log and ends) and the logs fetched.
func (r *remoteLoad) stop(vars string) error {
	ctx := r.hard
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// A deployment an older cometlab wrote lacks the playbook.
	if err := deploy.WriteBook(r.cfg.Dir, deploy.LoadStopBook); err != nil {
		return err
	}
	err := deploy.Playbook(ctx, r.cfg.Dir, deploy.LoadStopBook, vars, nil)
	r.keepLog(deploy.LoadStopBook, "ansible-playbook-stop.log")
	return err
}

// keepLog copies the deployment's log of book into the run's hosts
// directory as name.
func (r *remoteLoad) keepLog(book, name string) {
	if log, err := os.ReadFile(filepath.Join(r.cfg.Dir, strings.TrimSuffix(book, ".yml")+".log")); err == nil {
		_ = os.WriteFile(r.rd.path(filepath.Join(HostsDir, name)), log, 0o644)
	}
}

// merge appends each host's sent.csv and replies.csv to the run's, and
// records each host's share and counts in run.json.
func (r *remoteLoad) merge(runErr error) error {
	var errs []error
	for i, h := range r.hostRecs {
		dir := r.rd.path(filepath.Join(HostsDir, h.Name))
		var st load.Stats
		err := results.ScanSent(dir, func(rows []results.Sent) error {
			for k := range rows {
				s := &rows[k]
				if s.Actual == 0 {
					st.Unsent++
				} else {
					st.Sent++
					if time.Duration(s.Actual-s.Intended) > r.late {
						st.Late++
					}
				}
				if err := r.sent.Write(s); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			err = results.ScanReplies(dir, func(rows []results.Reply) error {
				for k := range rows {
					st.Replies++
					if !rows[k].OK {
						st.Errors++
					}
					if err := r.replies.Write(&rows[k]); err != nil {
						return err
					}
				}
				return nil
			})
		}
		var remote results.Run
		if rerr := results.ReadJSON(filepath.Join(dir, results.RunFile), &remote); rerr == nil && len(remote.Errors) > 0 {
			r.hostRecs[i].Error = strings.Join(remote.Errors, "; ")
		}
		if err != nil {
			err = fmt.Errorf("load host %s: its send log: %w", h.Name, err)
			errs = append(errs, err)
			if r.hostRecs[i].Error == "" {
				r.hostRecs[i].Error = err.Error()
			}
		}
		r.hostRecs[i].Sent, r.hostRecs[i].Unsent = int64(st.Sent), int64(st.Unsent)
		r.mu.Lock()
		r.stats.Sent += st.Sent
		r.stats.Unsent += st.Unsent
		r.stats.Late += st.Late
		r.stats.Replies += st.Replies
		r.stats.Errors += st.Errors
		r.mu.Unlock()
	}
	var failed *deploy.PlaybookError
	if errors.As(runErr, &failed) {
		for i := range r.hostRecs {
			if r.hostRecs[i].Error == "" && failed.Failed(r.hostRecs[i].Name) {
				r.hostRecs[i].Error = "its load failed: see " + filepath.Join(HostsDir, "ansible-playbook.log")
			}
		}
	}
	r.rd.set(func(run *results.Run) { run.LoadHosts = r.hostRecs })
	return errors.Join(errs...)
}

// Stats are the merged hosts' counts: zero until their logs are merged.
func (r *remoteLoad) Stats() load.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// waitStart waits for startAt (a load host's share of a load from
// several hosts): a load host that reaches it more than a second late
// fails, since its share would not start with the others'.
func (p *pipeline) waitStart(ctx context.Context) error {
	at := p.send.startAt
	if at.IsZero() {
		return nil
	}
	wait := time.Until(at)
	if wait < -time.Second {
		return fmt.Errorf("the start time %s passed %s ago: this host started late (give a longer --start-lead)",
			at.Format(time.RFC3339Nano), (-wait).Round(time.Millisecond))
	}
	if wait > 0 {
		p.out.Phase("load: starting at %s, in %s", at.Format("15:04:05.000"), wait.Round(time.Millisecond))
	}
	return sleepCtx(ctx, wait)
}

// clockLine describes the hosts' clock offsets for a phase line.
func clockLine(clocks []results.Clock) string {
	var parts []string
	for _, c := range clocks {
		parts = append(parts, fmt.Sprintf("%s %+.2f ± %.2f ms", c.Host, float64(c.OffsetNs)/1e6, float64(c.UncertaintyNs)/1e6))
	}
	return fmt.Sprintf("%s from this host's; latency error bound %.2f ms", strings.Join(parts, ", "), float64(results.ClockBound(clocks))/1e6)
}

// uuidString formats a run id.
func uuidString(id [16]byte) string { return uuid.UUID(id).String() }
