package series

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// SpecKind is what a side of an A/B experiment (--base, --cand) names.
type SpecKind int

// Kinds of spec.
const (
	SpecVersion  SpecKind = iota + 1 // a CometBFT release, "v0.38.26"
	SpecBinary                       // the path of a cometbft binary, or of a CometBFT source tree (a directory)
	SpecManifest                     // the path of a manifest file (*.toml)
	SpecSet                          // overrides on the default: "key=value key=value"
)

func (k SpecKind) String() string {
	return [...]string{"", "version", "binary", "manifest", "set"}[k]
}

// Spec is one side of an A/B experiment as the user wrote it.
type Spec struct {
	Text string
	Kind SpecKind
	// Value is the version or path; Sets the key=value overrides in order.
	Value string
	Sets  [][2]string
}

var versionSpecRE = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// ParseSpec classifies a spec by its syntax alone: words with "=" are
// --set-style overrides (keys as [manifest.SettableKey] takes them,
// separated by spaces); "vX.Y.Z" is a version; a path ending in ".toml" a
// manifest; any other text the path of a binary, or of a directory: a
// CometBFT source tree (Manifest tells them apart). Errors say what is wrong
// with the spec; ABSides names the side (SideError).
func ParseSpec(text string) (Spec, error) {
	s := Spec{Text: text}
	t := strings.TrimSpace(text)
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf(format, args...)
	}
	switch {
	case t == "":
		return bad("empty: want a version (v0.38.26), a binary, a manifest file or key=value overrides")
	case strings.Contains(t, "="):
		s.Kind = SpecSet
		for _, w := range strings.Fields(t) {
			k, v, ok := strings.Cut(w, "=")
			if !ok || k == "" {
				return bad("%q: want key=value", w)
			}
			key, err := manifest.SettableKey(k)
			if err != nil {
				return bad("%v", err)
			}
			s.Sets = append(s.Sets, [2]string{key, v})
		}
	case versionSpecRE.MatchString(t):
		s.Kind, s.Value = SpecVersion, t
	case strings.HasSuffix(t, ".toml"):
		s.Kind, s.Value = SpecManifest, t
	default:
		s.Kind, s.Value = SpecBinary, t
	}
	return s, nil
}

// Manifest returns the manifest of the side: the manifest file itself,
// read as src says and with src's flags laid over it (src.WithPath), or
// def (src's own manifest) with the version, the binary or the overrides
// laid over it. It reads the manifest file and checks that a binary
// exists; ABSides names the side of an error (SideError).
func (s Spec) Manifest(src manifest.Source, def manifest.Manifest) (manifest.Manifest, error) {
	m := def
	switch s.Kind {
	case SpecManifest:
		loaded, err := src.WithPath(s.Value).Manifest()
		if err != nil {
			return def, err
		}
		return loaded, nil
	case SpecVersion:
		if err := m.Set("cometbft_version", s.Value); err != nil {
			return def, err
		}
	case SpecBinary:
		fi, err := os.Stat(s.Value)
		if err != nil {
			return def, err
		}
		if fi.IsDir() { // a CometBFT checkout: its tree is the side's code (cometbft_source)
			abs, err := filepath.Abs(s.Value)
			if err != nil {
				return def, err
			}
			if err := m.Set("cometbft_source", abs); err != nil {
				return def, err
			}
			return m, nil
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return def, fmt.Errorf("not an executable file")
		}
		if err := m.Apply(manifest.Overrides{CometBFTBinary: &s.Value}); err != nil {
			return def, err
		}
	case SpecSet:
		for _, kv := range s.Sets {
			if err := m.Set(kv[0], kv[1]); err != nil {
				return def, fmt.Errorf("%s=%s: %w", kv[0], kv[1], err)
			}
		}
	default:
		return def, fmt.Errorf("unparsed spec")
	}
	return m, nil
}

// Orders of the runs in a round of an A/B experiment (--order).
const (
	// OrderCounterbalanced rotates the sides round by round: with two
	// sides AB, BA, AB, BA… (ABBA), so that each side runs first in half
	// the rounds and a position effect (the second run of a round faster
	// or slower than the first) cancels out of the comparison over an
	// even number of rounds. The default.
	OrderCounterbalanced = "counterbalanced"
	// OrderInterleaved runs the sides in order every round (base first).
	OrderInterleaved = "interleaved"
	// OrderRandom draws each round's order from a PCG seeded with the
	// seed and the round.
	OrderRandom = "random"
)

// Orders are the values of --order.
func Orders() []string { return []string{OrderCounterbalanced, OrderInterleaved, OrderRandom} }

// ABOrder returns the order of the runs of round i (one round is one run
// of every side: side 0 the base, 1… the candidates) under order: the
// sides rotated by i (counterbalanced), in order (interleaved), or a
// permutation drawn from a PCG seeded with seed and i (random). A round's
// order does not depend on how many rounds came before, so the order and
// seed recorded reproduce the whole experiment.
func ABOrder(round, sides int, order string, seed uint64) []int {
	o := make([]int, sides)
	for i := range o {
		o[i] = i
		if order == OrderCounterbalanced {
			o[i] = (i + round) % sides
		}
	}
	if order == OrderRandom {
		r := rand.New(rand.NewPCG(seed, uint64(round)))
		r.Shuffle(sides, func(i, j int) { o[i], o[j] = o[j], o[i] })
	}
	return o
}

// OrderText says in a sentence how the runs of each round were ordered.
func OrderText(order string, seed uint64) string {
	switch order {
	case OrderCounterbalanced:
		return "counterbalanced: the sides rotate round by round (AB, BA, AB, …), so that each runs first as often as the others and a " +
			"position effect cancels out over an even number of rounds"
	case OrderRandom:
		return fmt.Sprintf("random: each round's order drawn from seed %d, so that a position effect averages out", seed)
	}
	return "interleaved: the base first in every round; a position effect (see an A/A's) falls on the comparison"
}

// SideError is a side of an experiment that cannot be made: its index
// (0 the baseline, then the candidates), its spec as written, and why. It
// carries the usage exit code; a command names the side by its own flag
// (SideError.Named: ab's --base and --cand, qa's --baseline and
// --candidate).
type SideError struct {
	Side int
	Spec string
	Err  error
}

func (e *SideError) Error() string {
	return e.Named("the baseline", "the candidate")
}

// Named is the error with the side named base (side 0) or cand.
func (e *SideError) Named(base, cand string) string {
	name := cand
	if e.Side == 0 {
		name = base
	}
	return fmt.Sprintf("%s %q: %v", name, e.Spec, e.Err)
}

func (e *SideError) Unwrap() error { return e.Err }

// ExitCode is the usage code: nothing was run.
func (e *SideError) ExitCode() int { return exitcode.Usage }

// Place, when set, is applied to each side's manifest before it is
// resolved (ABSides): qa --inventory puts the nodes on the inventory's
// hosts (PlaceOnInventory) after the side's release or file is laid over.
type Place func(manifest.Manifest) (manifest.Manifest, error)

// ABDefaultRepeat is --repeat when it is not given: 3 rounds, or 10 pairs
// for an A/A calibration (aa), which measures the noise from them.
func ABDefaultRepeat(aa bool) string {
	if aa {
		return "10"
	}
	return "3"
}

// ABCandidates are the candidates' specs of an experiment: cands, or for
// an A/A calibration (aa) the base's spec again, so that both sides run
// the same.
func ABCandidates(base string, cands []string, aa bool) []string {
	if aa {
		return []string{base}
	}
	return cands
}

// ABSides resolves the manifests of an A/B experiment's sides and their
// labels: side 0 is the baseline (base, or src's manifest itself when
// base is ""), the others the candidates. Every side is built from src,
// the command line's manifest and flags: a spec that is a manifest file
// is read as src reads its own and gets the same flags (perturbations and
// partition included); the others are laid over src's manifest. A
// version names its side (runs/NN-v0.40.0) unless an earlier side has
// the same spec or aa is set; otherwise the labels are base, cand (or
// cand1, cand2, … with several candidates). A side that cannot be made is
// a *SideError; place, when set, is applied to every side (Place).
func ABSides(src manifest.Source, base string, cands []string, aa bool, place Place) ([]manifest.Resolved, []string, error) {
	m, err := src.Manifest()
	if err != nil {
		return nil, nil, exitcode.With(err, exitcode.Usage)
	}
	specs := append([]string{base}, cands...)
	var sides []manifest.Resolved
	var labels []string
	for i, text := range specs {
		label := "cand"
		if len(cands) > 1 {
			label = fmt.Sprintf("cand%d", i)
		}
		side := m
		if i == 0 {
			label = "base"
		}
		bad := func(err error) error { return &SideError{Side: i, Spec: text, Err: err} }
		if text != "" || (i > 0 && !aa) {
			s, err := ParseSpec(text)
			if err != nil {
				return nil, nil, bad(err)
			}
			if side, err = s.Manifest(src, m); err != nil {
				return nil, nil, bad(err)
			}
			if s.Kind == SpecVersion && !aa && !slices.Contains(specs[:i], text) {
				label = s.Value // a version names its side (runs/NN-v0.40.0)
			}
		}
		if place != nil {
			if side, err = place(side); err != nil {
				return nil, nil, bad(err)
			}
		}
		r, err := side.Resolve()
		if err != nil {
			return nil, nil, bad(err)
		}
		sides = append(sides, r)
		labels = append(labels, label)
	}
	return sides, labels, nil
}
