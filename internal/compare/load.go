package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
)

// InputError is an error in what a comparison was given (a directory that
// cannot be read, sides that cannot be matched): nothing was compared, and
// the command exits with exitcode.Usage.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// ExitCode is exitcode.Usage: the input was wrong, nothing was run.
func (e InputError) ExitCode() int { return exitcode.Usage }

// SideDirs is one side of a comparison as given: a label ("" for a
// default) and its directories: run directories (the repeats of one
// setup), or one sweep directory.
type SideDirs struct {
	Label string
	Dirs  []string
}

// Runs compares run directories: the first side is the baseline. Sides
// without a label get DefaultLabels. It returns the result and the sides
// as read (for plots); errors in the inputs are InputErrors.
func Runs(given []SideDirs, opts Options, load LoadOptions) (Result, []Side, error) {
	sides := make([]Side, len(given))
	var errs []error
	for i, g := range given {
		var err error
		if sides[i], err = LoadSide(g.Label, g.Dirs, load); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Result{}, nil, InputError{fmt.Errorf("unusable input: %w", err)}
	}
	DefaultLabels(sides)
	c, err := Sides(sides[0], sides[1:], opts)
	if err != nil {
		return Result{}, nil, InputError{err}
	}
	return c, sides, nil
}

// LoadOptions tune LoadRun.
type LoadOptions struct {
	// IgnoreConfig lists config.toml keys (dotted, "p2p.laddr") left out
	// of the settings: those cometlab sets per node and per run (ports,
	// peers, moniker), which differ between any two runs and say nothing
	// about the setup. Package cometbft knows them.
	IgnoreConfig []string
}

// LoadRun reads what a comparison needs from the run directory dir: the
// records (run.json and sent.csv must be there), from which it recomputes
// the figures and distributions with this cometlab's definitions;
// summary.json for figures it did not recompute; manifest.toml, the nodes'
// config.toml and genesis.json for the settings; metrics.csv and
// resources.csv, when there, for the time series. Missing optional files
// are listed in the run's Notes.
func LoadRun(dir string, opts LoadOptions) (Run, error) {
	in, err := analysis.ReadInput(dir)
	if err != nil {
		return Run{}, err
	}
	r := Run{Dir: dir, Run: in.Run}
	if rec, err := results.ReadRun(dir); err == nil {
		r.Run = rec // as recorded: a time-scaled run's load is the model's (in.Run's is the host's)
	}
	for _, f := range in.Missing {
		r.Notes = append(r.Notes, fmt.Sprintf("no %s: the figures and distributions that need it are missing", f))
	}
	r.Metrics = analysis.Summarize(in).Metrics
	mergeSummary(&r, dir)

	r.Samples = Samples(in)
	var mp []results.Metric
	err = results.ScanMetrics(dir, func(m *results.Metric) error {
		if IsMempoolSize(m.Name) || IsPeers(m.Name) {
			mp = append(mp, *m)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.Notes = append(r.Notes, fmt.Sprintf("%s unreadable (%v): no mempool series", results.MetricsFile, err))
	}
	res, err := results.ReadResources(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.Notes = append(r.Notes, fmt.Sprintf("%s unreadable (%v): no resource series", results.ResourceFile, err))
	}
	r.Traces = Traces(in, mp, res)

	r.Settings = RunSettings(r.Run)
	if b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile)); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("no %s: manifest differences not shown", results.ManifestFile))
	} else if m, err := FlattenTOML("manifest", b); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("%s unreadable: %v", results.ManifestFile, err))
	} else {
		maps.Copy(r.Settings, m)
	}
	maps.Copy(r.Settings, nodeSettings(dir, in.Run, opts))
	return r, nil
}

// mergeSummary adds the figures of dir/summary.json that the
// recomputation did not give (a newer or older cometlab's), and notes the
// figures whose recorded values differ from the recomputed ones.
func mergeSummary(r *Run, dir string) {
	var s analysis.Summary
	if err := results.ReadJSON(filepath.Join(dir, results.SummaryFile), &s); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.Notes = append(r.Notes, fmt.Sprintf("%s unreadable (%v): only recomputed figures", results.SummaryFile, err))
		}
		return
	}
	var differ, taken []string
	for id, v := range s.Metrics {
		got, ok := r.Metrics[id]
		switch {
		case !ok:
			r.Metrics[id] = v
			if _, known := analysis.Lookup(id); !known {
				r.Foreign = append(r.Foreign, id)
			} else {
				taken = append(taken, id)
			}
		case math.Abs(got-v) > 1e-9*max(1, math.Abs(v)):
			differ = append(differ, fmt.Sprintf("%s %.6g → %.6g", id, v, got))
		}
	}
	slices.Sort(r.Foreign)
	if len(taken) > 0 {
		slices.Sort(taken)
		r.Notes = append(r.Notes, fmt.Sprintf("taken from %s, not recomputable from the records: %s", results.SummaryFile, strings.Join(taken, ", ")))
	}
	if len(differ) > 0 {
		slices.Sort(differ)
		if len(differ) > 5 {
			differ = append(differ[:5], "…")
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s was written with other definitions; recomputed with this cometlab's (%s)", results.SummaryFile, strings.Join(differ, ", ")))
	}
}

// nodeSettings flattens the config.toml of every node into config.* keys
// (a key whose nodes disagree lists each value with its nodes) and the
// consensus parameters of the first node's genesis.json into
// genesis.consensus_params.*.
func nodeSettings(dir string, run results.Run, opts LoadOptions) map[string]string {
	ignore := map[string]bool{}
	for _, k := range opts.IgnoreConfig {
		ignore[k] = true
	}
	values := map[string]map[string][]string{} // key → value → nodes
	out := map[string]string{}
	for i, n := range run.Nodes {
		if n.Home == "" {
			continue
		}
		home := filepath.Join(dir, filepath.FromSlash(n.Home))
		if b, err := os.ReadFile(cometbft.ConfigFile(home)); err == nil {
			if m, err := FlattenTOML("", b); err == nil {
				for k, v := range m {
					if ignore[k] {
						continue
					}
					if values[k] == nil {
						values[k] = map[string][]string{}
					}
					values[k][v] = append(values[k][v], n.Name)
				}
			}
		}
		if i == 0 {
			if b, err := os.ReadFile(cometbft.GenesisFile(home)); err == nil {
				if m, err := FlattenJSON("", b); err == nil {
					for k, v := range m {
						if strings.HasPrefix(k, "consensus_params.") {
							out["genesis."+k] = v
						}
					}
				}
			}
		}
	}
	version := map[string]string{}
	for _, n := range run.Nodes {
		version[n.Name] = n.Version
	}
	for k, vs := range values {
		if len(vs) == 1 {
			for v, nodes := range vs {
				if len(nodes) == len(run.Nodes) {
					out["config."+k] = v
				} else {
					out["config."+k] = v + " (" + whose(nodes, version, run) + ")"
				}
			}
			continue
		}
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(vs)) {
			parts = append(parts, v+" ("+whose(vs[v], version, run)+")")
		}
		out["config."+k] = strings.Join(parts, " / ")
	}
	return out
}

// LoadSide reads the run directories dirs (repeats of one setup) as one
// side of a comparison. Every unreadable run is reported.
func LoadSide(label string, dirs []string, opts LoadOptions) (Side, error) {
	s := Side{Label: label}
	var errs []error
	for _, d := range dirs {
		r, err := LoadRun(d, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", d, err))
			continue
		}
		s.Runs = append(s.Runs, r)
	}
	return s, errors.Join(errs...)
}

// DefaultLabels names the sides that have no label: by the CometBFT
// versions of their runs when those tell the sides apart, otherwise by
// the base name of their first run directory (with "×n" for n repeats);
// a label already taken gets "#2", "#3", ….
func DefaultLabels(sides []Side) {
	versions := map[string]bool{}
	for _, s := range sides {
		vs := map[string]bool{}
		for _, r := range s.Runs {
			vs[NodeVersions(r.Run)] = true
		}
		if len(vs) != 1 {
			versions = nil
			break
		}
		for v := range vs {
			versions[v] = true
		}
	}
	byVersion := versions != nil && len(versions) == len(sides)
	taken := map[string]int{}
	for i := range sides {
		s := &sides[i]
		if s.Label == "" && len(s.Runs) > 0 {
			if byVersion {
				s.Label = NodeVersions(s.Runs[0].Run)
			} else {
				s.Label = filepath.Base(filepath.Clean(s.Runs[0].Dir))
			}
			if len(s.Runs) > 1 {
				s.Label += fmt.Sprintf(" ×%d", len(s.Runs))
			}
		}
		taken[s.Label]++
		if n := taken[s.Label]; n > 1 {
			s.Label += fmt.Sprintf(" #%d", n)
		}
	}
}

// whose names the nodes holding one value of a config key: by version
// ("v0.40.0 nodes") when they are exactly the nodes of those versions — so
// that two runs of one mixed network compare equal whichever nodes run
// which version —, otherwise by name.
func whose(nodes []string, version map[string]string, run results.Run) string {
	vs := map[string]bool{}
	for _, n := range nodes {
		vs[version[n]] = true
	}
	count := 0
	for _, n := range run.Nodes {
		if vs[n.Version] {
			count++
		}
	}
	if count == len(nodes) {
		return strings.Join(slices.Sorted(maps.Keys(vs)), ", ") + " nodes"
	}
	return strings.Join(nodes, ", ")
}
