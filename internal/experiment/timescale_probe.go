package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/shape"
)

// errAutoInSeries refuses time_scale = "auto" where runs are compared or
// judged together, before anything runs.
var errAutoInSeries = exitcode.With(errors.New(`time_scale = "auto" chooses k for one run from a probe of the host, `+
	`and the runs of a sweep, search, A/B experiment or QA must share one k: `+
	"choose it with `cometlab run` (its report's first line says which) and give that number"), exitcode.Usage)

// checkFixedScale refuses each of ms whose time scale is "auto" (a
// series' manifests), with errAutoInSeries.
func checkFixedScale(ms ...manifest.Resolved) error {
	for _, m := range ms {
		if m.TimeScaleAuto {
			return errAutoInSeries
		}
	}
	return nil
}

// A probe of time_scale = "auto" loads its testnet for probeModel of the
// model's time, and at least probeMinHost of the host's.
const (
	probeModel   = 5 * time.Second
	probeMinHost = 8 * time.Second
)

// chooseByProbe resolves time_scale = "auto" for a run of m: it probes the
// testnet on this host (probeAt), first in real time, then at the k
// chooseTimeScale asks for, and returns m at the chosen k with the record
// of how it was chosen (run.json's time_scale_auto).
func chooseByProbe(ctx context.Context, opts Options, m manifest.Resolved, out *Printer) (manifest.Resolved, *results.TimeScaleAuto, error) {
	maxK := 1.0
	for _, k := range autoScales(cometbft.MaxTimeScale) {
		if m.TimeScaleProblem(k) != "" {
			break
		}
		maxK = k
	}
	var probes []results.TimeScaleProbe
	for k := 1.0; ; {
		out.Phase("time scale auto: probing the testnet at k = %g (%s of load)", k, probeHost(k))
		p, err := probeAt(ctx, opts, m, k, fmt.Sprintf("%s.probe-k%g", opts.Dir, k))
		if err != nil {
			return m, nil, fmt.Errorf(`time_scale = "auto": the probe at k = %g: %w`, k, err)
		}
		probes = append(probes, p)
		out.Phase("time scale auto: at k = %g the testnet took %.2f cores, cometlab %.2f, other work %.2f, of %d",
			k, p.Testnet, p.Harness, p.Other, p.Cores)
		choice, next := chooseTimeScale(probes, maxK)
		if next == 0 {
			out.Phase("time scale auto: k = %g: %s", choice.Chosen, choice.Reason)
			run, err := m.WithTimeScale(choice.Chosen)
			return run, &choice, err
		}
		k = next
	}
}

// probeHost is how long a probe at k loads its testnet on the host.
func probeHost(k float64) time.Duration {
	return max(probeMinHost, cometbft.ScaleDuration(probeModel, k))
}

// probeManifest is the testnet of m at time scale k under a steady load:
// the manifest's own, constant at its mean rate for a shape, with
// loadtime payloads of its size for the user's own transactions, for
// probeHost(k), its drain cut to probeModel; without perturbations,
// partition or evidence.
func probeManifest(m manifest.Resolved, k float64) (manifest.Resolved, error) {
	m, err := m.WithTimeScale(k)
	if err != nil {
		return m, err
	}
	m.Perturbations, m.Partition, m.Evidence = nil, nil, 0
	w := m.Load
	if !w.Shape.IsConstant() && len(w.Clients) == 0 {
		w.Rate = float64(w.ExpectedTxs()) / w.Duration.Seconds()
		w.Shape = shape.Spec{}
	}
	w.Duration, w.TxsFile = time.Duration(float64(probeHost(k))/k), ""
	w.DrainTimeout = min(w.DrainTimeout, probeModel) // the measure is over the load: no need to wait long after it
	m.Load = w
	return m, nil
}

// probeAt runs m's testnet at time scale k under probeManifest's load in
// the run directory dir (the run's own beside it: DIR.probe-kK), removed
// after, and returns the host's CPU over the load (host.csv's means). A
// run that failed, lost a node or whose load ended with an error is no
// measure: its problems are the error.
func probeAt(ctx context.Context, opts Options, m manifest.Resolved, k float64, dir string) (results.TimeScaleProbe, error) {
	pm, err := probeManifest(m, k)
	if err != nil {
		return results.TimeScaleProbe{}, exitcode.With(err, exitcode.Usage)
	}
	s := beginRun(dir, opts.Hard, opts.Logger)
	defer os.RemoveAll(s.dir)
	spec, err := testnetSpec(ctx, pm, opts.Fetcher, "cometlab-probe-"+s.id.String()[:8])
	if err != nil {
		return results.TimeScaleProbe{}, err
	}
	rd, err := s.createOnTestnet(opts.Version, pm)
	if err != nil {
		return results.TimeScaleProbe{}, err
	}
	c := opts.Collect
	c.Prometheus, c.NoResources = "", false // host.csv is the measure
	p, err := runTestnet(ctx, s, rd, NewPrinter(nil), Options{Manifest: pm, Dir: s.dir, Env: opts.Env, Collect: c}, spec)
	rd.mu.Lock()
	for _, pr := range rd.problems {
		if pr.kind != problemNotDrained {
			err = errors.Join(err, pr.err)
		}
	}
	rd.mu.Unlock()
	if err != nil {
		return results.TimeScaleProbe{}, err
	}
	if p == nil || p.loadEnd.IsZero() {
		return results.TimeScaleProbe{}, errors.New("its load did not run")
	}
	host, err := results.ReadHost(rd.dir)
	if err != nil {
		return results.TimeScaleProbe{}, err
	}
	pr := probeFigures(host, p.loadStart.UnixNano(), p.loadEnd.UnixNano())
	if pr.Samples == 0 {
		return pr, fmt.Errorf("%s has no sample during its load", results.HostFile)
	}
	pr.K, pr.Seconds = k, p.loadEnd.Sub(p.loadStart).Seconds()
	pr.Rate = float64(pm.Load.ExpectedTxs()) / pm.Load.Duration.Seconds()
	return pr, nil
}

// probeFigures are the means of host.csv's rows from…to (Unix ns): the
// testnet's, cometlab's and other work's CPU, in cores.
func probeFigures(host []results.HostSample, from, to int64) results.TimeScaleProbe {
	var p results.TimeScaleProbe
	for _, h := range host {
		if h.Time < from || h.Time > to || h.Cores <= 0 {
			continue
		}
		p.Cores = h.Cores
		p.Testnet, p.Harness, p.Other = p.Testnet+h.Testnet, p.Harness+h.Harness, p.Other+h.Other()
		p.Samples++
	}
	if n := float64(p.Samples); n > 0 {
		p.Testnet, p.Harness, p.Other = p.Testnet/n, p.Harness/n, p.Other/n
	}
	return p
}
