package manifest

import (
	"fmt"
	"maps"
	"time"
)

// Overrides are manifest values given on the command line; nil fields are
// not set. Each field names the flag that errors about it mention.
type Overrides struct {
	// Connections is --connections (c), load.connections.
	Connections *int
	// Rate is --rate (r), load.rate in tx/s per connection; see [ParseRate].
	Rate *float64
	// Size is --size (s), load.size in bytes.
	Size *int
	// Duration is --duration (T), load.duration.
	Duration *time.Duration
	// Validators is --validators, the number of generated validators; it
	// conflicts with [node.*] tables.
	Validators *int
	// CometBFTVersion is --cometbft-version. Given without CometBFTBinary,
	// it also clears the file's cometbft_binary (and its cometbft_source):
	// the flag asks for a release.
	CometBFTVersion *string
	// CometBFTBinary is --cometbft-binary.
	CometBFTBinary *string
	// Pacing is --pacing, load.pacing.
	Pacing *string
	// DrainTimeout is --drain-timeout, load.drain_timeout (0: no wait).
	DrainTimeout *time.Duration
	// Target is --target, load.target; it is checked against the node names
	// by [Manifest.Resolve].
	Target *string
	// Shape is --shape, load.shape. It replaces the file's shape whole: the
	// file's shape keys (rate_to, steps, on, …) are dropped, and the flags
	// below give the new shape's.
	Shape *string
	// RateTo is --rate-to, load.rate_to in tx/s per connection.
	RateTo *float64
	// Steps is --steps, load.steps in tx/s per connection (nil: not set).
	Steps []float64
	// Step is --step, load.step.
	Step *time.Duration
	// On and Off are --on and --off, load.on and load.off.
	On, Off *time.Duration
	// Amplitude is --amplitude, load.amplitude in tx/s per connection.
	Amplitude *float64
	// Period is --period, load.period.
	Period *time.Duration
	// Trace is --trace, load.trace (a path, relative to the working
	// directory).
	Trace *string
	// Txs is --txs, load.txs (a path, relative to the working directory).
	Txs *string
	// App is --app, the app's name ("kvstore" or "e2e"); an [app] table's
	// settings stay.
	App *string
	// Perturb is --perturb, each NODE:ACTION[@WHEN][,…] ([ParsePerturb]),
	// one per node; each replaces the file's [perturb.NODE].
	Perturb []string
	// Partition is --partition, SPLIT[@AT][,duration=D]
	// ([ParsePartition]); it replaces the file's [partition].
	Partition *string
	// TimeScale is --time-scale, time_scale as written: a number >= 1
	// (or "auto", refused as not built yet).
	TimeScale *string
}

// Apply lays the flags in o over m: flags win over the file. It checks each
// flag's value on its own and returns every problem at once, each an
// [*Error] naming the flag ("--rate: must be > 0 and finite, got 0"); on
// error m is unchanged. --validators together with [node.*] tables is an
// error. Later errors about a value a flag set (from [Manifest.Resolve])
// name the flag too, not the file.
func (m *Manifest) Apply(o Overrides) error {
	errs := m.checkOverrides(o)
	perturbs, partition, perr := o.perturbations()
	errs = append(errs, perr...)
	if len(errs) > 0 {
		return joinSorted(errs)
	}

	// Copy the origin map: a Manifest copied by value must not see this
	// Apply's flags.
	m.origin = maps.Clone(m.origin)
	if m.origin == nil {
		m.origin = map[string]string{}
	}
	set := func(key, flag string) { m.origin[key] = flag }
	if partition != nil {
		m.SetPartition(*partition)
	}
	for _, p := range perturbs {
		m.AddPerturb(p.node, p.p)
	}
	if o.Validators != nil {
		m.Validators = *o.Validators
		set("validators", "--validators")
	}
	if o.Connections != nil {
		m.Load.Connections = *o.Connections
		set("load.connections", "--connections")
	}
	if o.Rate != nil {
		m.Load.Rate = *o.Rate
		set("load.rate", "--rate")
	}
	if o.Size != nil {
		m.Load.Size = *o.Size
		set("load.size", "--size")
	}
	if o.Duration != nil {
		m.Load.Duration = o.Duration.String()
		set("load.duration", "--duration")
	}
	if o.CometBFTVersion != nil {
		m.CometBFTVersion = *o.CometBFTVersion
		set("cometbft_version", "--cometbft-version")
		if o.CometBFTBinary == nil {
			m.CometBFTBinary = ""
			set("cometbft_binary", "--cometbft-version")
		}
		if m.CometBFTSource != "" { // the flag asks for a release
			m.CometBFTSource = ""
			set("cometbft_source", "--cometbft-version")
		}
	}
	if o.CometBFTBinary != nil {
		m.CometBFTBinary = *o.CometBFTBinary
		set("cometbft_binary", "--cometbft-binary")
	}
	if o.Pacing != nil {
		m.Load.Pacing = *o.Pacing
		set("load.pacing", "--pacing")
	}
	if o.DrainTimeout != nil {
		m.Load.DrainTimeout = o.DrainTimeout.String()
		set("load.drain_timeout", "--drain-timeout")
	}
	if o.Target != nil {
		m.Load.Target = *o.Target
		set("load.target", "--target")
	}
	m.applyShape(o, set)
	if o.TimeScale != nil {
		k, auto, _ := timeScaleOf(*o.TimeScale) // checked above
		m.TimeScale = k
		if auto {
			m.TimeScale = TimeScaleAuto
		}
		set("time_scale", "--time-scale")
	}
	if o.App != nil {
		_ = m.setApp("", *o.App) // checked above
		set("app", "--app")
		set("app.kind", "--app")
	}
	return nil
}

// checkOverrides checks each flag's value in o on its own (and
// --validators against m's [node] tables): every problem, each naming
// its flag. Apply checks the perturbations as it parses them.
func (m *Manifest) checkOverrides(o Overrides) []*Error {
	var errs []*Error
	bad := func(flag, msg string) {
		errs = append(errs, &Error{Flag: flag, Msg: msg})
	}
	check := func(flag, msg string) {
		if msg != "" {
			bad(flag, msg)
		}
	}
	if o.Validators != nil {
		if len(m.Nodes) > 0 {
			where := m.file
			if where == "" {
				where = "the manifest"
			}
			errs = append(errs, &Error{Msg: fmt.Sprintf("--validators conflicts with the [node] tables in %s", where)})
		} else {
			check("--validators", checkValidators(*o.Validators))
		}
	}
	if o.Connections != nil {
		check("--connections", checkConnections(*o.Connections))
	}
	if o.Rate != nil {
		check("--rate", checkRate(*o.Rate))
	}
	if o.Size != nil {
		check("--size", checkSize(*o.Size))
	}
	if o.Duration != nil {
		check("--duration", checkDuration(*o.Duration, false))
	}
	if o.CometBFTVersion != nil {
		check("--cometbft-version", checkVersion(*o.CometBFTVersion))
	}
	if o.Pacing != nil {
		check("--pacing", checkPacing(*o.Pacing))
	}
	if o.DrainTimeout != nil {
		check("--drain-timeout", checkDuration(*o.DrainTimeout, true))
	}
	if o.Target != nil && *o.Target == "" {
		bad("--target", "must not be empty")
	}
	if o.Shape != nil {
		check("--shape", checkShape(*o.Shape))
	}
	for _, d := range []struct {
		flag string
		d    *time.Duration
	}{{"--step", o.Step}, {"--on", o.On}, {"--off", o.Off}, {"--period", o.Period}} {
		if d.d != nil {
			check(d.flag, checkDuration(*d.d, false))
		}
	}
	if o.TimeScale != nil {
		_, _, msg := timeScaleOf(*o.TimeScale)
		check("--time-scale", msg)
	}
	if _, _, ok := appOf(m.App); o.App != nil && !ok {
		bad("--app", "the manifest's app is neither a name nor an [app] table")
	}
	return errs
}

// nodePerturb is one --perturb flag, parsed.
type nodePerturb struct {
	node string
	p    ManifestPerturb
}

// perturbations parses --perturb and --partition: one perturbation per
// node, each error naming the flag.
func (o Overrides) perturbations() ([]nodePerturb, *ManifestPartition, []*Error) {
	var errs []*Error
	var part *ManifestPartition
	if o.Partition != nil {
		p, err := ParsePartition(*o.Partition)
		if err != nil {
			errs = append(errs, &Error{Msg: "--partition " + err.Error()})
		} else {
			part = &p
		}
	}
	var ps []nodePerturb
	seen := map[string]bool{}
	for _, s := range o.Perturb {
		node, p, err := ParsePerturb(s)
		switch {
		case err != nil:
			errs = append(errs, &Error{Msg: "--perturb " + err.Error()})
		case seen[node]:
			errs = append(errs, &Error{Flag: "--perturb", Msg: fmt.Sprintf("node %s given twice (one perturbation per node; use every and count to repeat it)", node)})
		default:
			seen[node] = true
			ps = append(ps, nodePerturb{node, p})
		}
	}
	return ps, part, errs
}
