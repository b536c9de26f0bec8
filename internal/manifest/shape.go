package manifest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

// shapeKeys are the [load] keys that belong to one shape each, in the order
// ManifestLoad lists them.
var shapeKeys = []struct {
	key, shape string
	set        func(l *ManifestLoad) bool
}{
	{"rate_to", shape.Ramp, func(l *ManifestLoad) bool { return l.RateTo != nil }},
	{"steps", shape.Ramp, func(l *ManifestLoad) bool { return l.Steps != nil }},
	{"step", shape.Ramp, func(l *ManifestLoad) bool { return l.Step != "" }},
	{"on", shape.Square, func(l *ManifestLoad) bool { return l.On != "" }},
	{"off", shape.Square, func(l *ManifestLoad) bool { return l.Off != "" }},
	{"amplitude", shape.Sine, func(l *ManifestLoad) bool { return l.Amplitude != nil }},
	{"period", shape.Sine, func(l *ManifestLoad) bool { return l.Period != "" }},
	{"trace", shape.Trace, func(l *ManifestLoad) bool { return l.Trace != "" }},
}

// clearShape removes every shape key from l (a --shape flag replaces the
// file's shape whole).
func clearShape(l *ManifestLoad) {
	l.RateTo, l.Steps, l.Step, l.On, l.Off, l.Amplitude, l.Period, l.Trace = nil, nil, "", "", "", nil, "", ""
}

// resolveShape checks the shape keys of [load] and fills l.Shape (and
// l.TraceFile, reading the trace).
func (m *Manifest) resolveShape(ps *problems, l *Workload) {
	ml := &m.Load
	kind := ml.Shape
	if kind == "" {
		kind = shape.Constant
	}
	if msg := checkShape(kind); msg != "" {
		ps.add(f("load", "shape"), "%s", msg)
		return
	}
	if kind != shape.Constant {
		l.Shape.Kind = kind
	}
	key := func(k string) []string { return f("load", k) }
	for _, k := range shapeKeys {
		if k.set(ml) && k.shape != kind {
			ps.add(key(k.key), "only for shape = %q (shape is %q)", k.shape, kind)
		}
	}
	need := func(k string, set bool) {
		if !set {
			ps.add(key("shape"), "shape %q needs %s", kind, k)
		}
	}
	dur := func(k, s string, zeroOK bool) time.Duration {
		if s == "" {
			return 0
		}
		return duration(ps, key(k), s, zeroOK)
	}
	before := len(ps.errs)
	switch kind {
	case shape.Ramp:
		resolveRamp(ps, ml, l, need, dur)
	case shape.Square:
		need("on", ml.On != "")
		need("off", ml.Off != "")
		l.Shape.On, l.Shape.Off = dur("on", ml.On, false), dur("off", ml.Off, false)
	case shape.Sine:
		need("amplitude", ml.Amplitude != nil)
		need("period", ml.Period != "")
		l.Shape.Period = dur("period", ml.Period, false)
		if ml.Amplitude != nil {
			a := *ml.Amplitude
			l.Shape.Amplitude = a
			if !(a > 0 && a <= l.Rate) {
				ps.add(key("amplitude"), "must be > 0 and <= rate (%v), so the rate never goes below 0; got %v", l.Rate, a)
			}
		}
	case shape.Trace:
		need("trace", ml.Trace != "")
		if ml.Trace != "" {
			path := m.relative(ml.Trace, "load.trace")
			pts, err := shape.ReadTrace(path)
			if err != nil {
				ps.add(key("trace"), "%v", err)
			}
			l.Shape.Trace = pts
			l.TraceFile = path
			if abs, err := filepath.Abs(path); err == nil {
				l.TraceFile = abs
			}
		}
	}
	m.resolveTxs(ps, l)
	if kind != shape.Constant && ml.Pacing == PacingBurst {
		ps.add(key("pacing"), "burst pacing is for the constant shape only (shape is %q)", kind)
	}
	if kind != shape.Constant && len(ps.errs) == before && l.Duration > 0 && checkRate(l.Rate) == "" {
		// Whatever the keys' own checks let through.
		if err := l.Spec().Validate(); err != nil {
			ps.add(key("shape"), "%v", err)
		}
	}
}

// resolveRamp checks a ramp's keys, a linear one (rate_to) or steps
// (steps, step), and fills l.Shape; need and dur are resolveShape's.
func resolveRamp(ps *problems, ml *ManifestLoad, l *Workload, need func(string, bool), dur func(k, s string, zeroOK bool) time.Duration) {
	key := func(k string) []string { return f("load", k) }
	switch {
	case ml.Steps != nil && ml.RateTo != nil:
		ps.add(key("rate_to"), "give rate_to (a linear ramp) or steps, not both")
	case ml.Steps != nil:
		need("step", ml.Step != "")
		l.Shape.Steps, l.Shape.Step = ml.Steps, dur("step", ml.Step, false)
		if len(ml.Steps) == 0 {
			ps.add(key("steps"), "must list at least one rate")
		}
		for i, r := range ml.Steps {
			if msg := checkRateAtLeast0(r); msg != "" {
				ps.add(key("steps"), "step %d: %s", i+1, msg)
			}
		}
		if n := len(ml.Steps); n > 0 && l.Shape.Step > 0 && l.Duration > 0 && time.Duration(n-1)*l.Shape.Step >= l.Duration {
			ps.add(key("steps"), "%d steps of %s: the last would start after the load ends (duration %s)", n, l.Shape.Step, l.Duration)
		}
	default:
		need("rate_to (a linear ramp) or steps", ml.RateTo != nil)
		if ml.RateTo != nil {
			l.Shape.RateTo = *ml.RateTo
			if msg := checkRateAtLeast0(*ml.RateTo); msg != "" {
				ps.add(key("rate_to"), "%s", msg)
			}
		}
	}
}

// resolveTxs checks [load] txs, the user's own transactions' file
// (relative to the manifest), and fills l.TxsFile with its absolute path.
func (m *Manifest) resolveTxs(ps *problems, l *Workload) {
	ml := &m.Load
	if ml.Txs == "" {
		return
	}
	path := m.relative(ml.Txs, "load.txs")
	if st, err := os.Stat(path); err != nil {
		ps.add(f("load", "txs"), "%v", err)
	} else if st.IsDir() {
		ps.add(f("load", "txs"), "%s is a directory", path)
	}
	l.TxsFile = path
	if abs, err := filepath.Abs(path); err == nil {
		l.TxsFile = abs
	}
}

// relative resolves a path given in the manifest against its directory (a
// path a flag gave is the working directory's).
func (m *Manifest) relative(path, key string) string {
	if !filepath.IsAbs(path) && m.file != "" {
		if _, fromFlag := m.origin[key]; !fromFlag {
			path = filepath.Join(filepath.Dir(m.file), path)
		}
	}
	return path
}

func checkShape(kind string) string {
	if !slices.Contains(shape.Kinds, kind) {
		return fmt.Sprintf("invalid shape %q (want one of %q)", kind, shape.Kinds)
	}
	return ""
}

func checkRateAtLeast0(r float64) string {
	if !(r >= 0) || math.IsInf(r, 0) {
		return fmt.Sprintf("must be >= 0 and finite, got %v", r)
	}
	return ""
}

// encodeShape writes the shape of w into the [load] table l: the kind and
// its own keys only, the trace as an absolute path.
func encodeShape(l *ManifestLoad, w Workload) {
	l.Txs = w.TxsFile
	s := w.Shape
	l.Shape = w.ShapeName()
	switch l.Shape {
	case shape.Ramp:
		if s.Steps != nil {
			l.Steps, l.Step = s.Steps, s.Step.String()
		} else {
			l.RateTo = &s.RateTo
		}
	case shape.Square:
		l.On, l.Off = s.On.String(), s.Off.String()
	case shape.Sine:
		l.Amplitude, l.Period = &s.Amplitude, s.Period.String()
	case shape.Trace:
		l.Trace = w.TraceFile
	}
}

// Spec returns the load's shape with its rate and duration: what the load
// generator and shape.New take.
func (l Workload) Spec() shape.Spec {
	s := l.Shape
	s.Rate, s.Duration = l.Rate, l.Duration
	return s
}

// ShapeName returns the name of the load's shape ("constant" when unset).
func (l Workload) ShapeName() string {
	if l.Shape.IsConstant() {
		return shape.Constant
	}
	return l.Shape.Kind
}

// applyShape lays the shape flags of o over m (Apply has checked them).
func (m *Manifest) applyShape(o Overrides, set func(key, flag string)) {
	l := &m.Load
	if o.Shape != nil {
		clearShape(l)
		l.Shape = *o.Shape
		set("load.shape", "--shape")
	}
	dur := func(d *time.Duration, dst *string, key, flag string) {
		if d != nil {
			*dst = d.String()
			set(key, flag)
		}
	}
	if o.RateTo != nil {
		l.RateTo = new(*o.RateTo)
		set("load.rate_to", "--rate-to")
	}
	if o.Steps != nil {
		l.Steps = o.Steps
		set("load.steps", "--steps")
	}
	dur(o.Step, &l.Step, "load.step", "--step")
	dur(o.On, &l.On, "load.on", "--on")
	dur(o.Off, &l.Off, "load.off", "--off")
	if o.Amplitude != nil {
		l.Amplitude = new(*o.Amplitude)
		set("load.amplitude", "--amplitude")
	}
	dur(o.Period, &l.Period, "load.period", "--period")
	if o.Trace != nil {
		l.Trace = *o.Trace
		set("load.trace", "--trace")
	}
	if o.Txs != nil {
		l.Txs = *o.Txs
		set("load.txs", "--txs")
	}
}
