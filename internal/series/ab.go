package series

import (
	"fmt"
	"math/rand/v2"
	"os"
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
	SpecBinary                       // the path of a cometbft binary
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
// manifest; any other text the path of a binary. Errors carry the usage
// exit code and name the flag.
func ParseSpec(flag, text string) (Spec, error) {
	s := Spec{Text: text}
	t := strings.TrimSpace(text)
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, exitcode.With(fmt.Errorf("%s %q: "+format, append([]any{flag, text}, args...)...), exitcode.Usage)
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
// exists; errors name the flag and carry the usage exit code.
func (s Spec) Manifest(flag string, src manifest.Source, def manifest.Manifest) (manifest.Manifest, error) {
	wrap := func(err error) error {
		return exitcode.With(fmt.Errorf("%s %q: %w", flag, s.Text, err), exitcode.Usage)
	}
	m := def
	switch s.Kind {
	case SpecManifest:
		loaded, err := src.WithPath(s.Value).Manifest()
		if err != nil {
			return def, wrap(err)
		}
		return loaded, nil
	case SpecVersion:
		if err := m.Set("cometbft_version", s.Value); err != nil {
			return def, wrap(err)
		}
	case SpecBinary:
		fi, err := os.Stat(s.Value)
		if err != nil {
			return def, wrap(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return def, wrap(fmt.Errorf("not an executable file"))
		}
		if err := m.Apply(manifest.Overrides{CometBFTBinary: &s.Value}); err != nil {
			return def, wrap(err)
		}
	case SpecSet:
		for _, kv := range s.Sets {
			if err := m.Set(kv[0], kv[1]); err != nil {
				return def, wrap(fmt.Errorf("%s=%s: %w", kv[0], kv[1], err))
			}
		}
	default:
		return def, wrap(fmt.Errorf("unparsed spec"))
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

// SideFlags name the command-line flags of an experiment's sides, for
// its errors ("--cand \"v9.9.9\": …").
type SideFlags struct {
	Base, Cand string
	// Place, when set, is applied to each side's manifest before it is
	// resolved: qa --inventory puts the nodes on the inventory's hosts
	// (PlaceOnInventory) after the side's release or file is laid over.
	Place func(manifest.Manifest) (manifest.Manifest, error)
}

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
// cand1, cand2, … with several candidates). Errors name a side by the
// caller's flag for it (flags: ab's --base and --cand, qa's own).
func ABSides(src manifest.Source, base string, cands []string, aa bool, flags SideFlags) ([]manifest.Resolved, []string, error) {
	m, err := src.Manifest()
	if err != nil {
		return nil, nil, exitcode.With(err, exitcode.Usage)
	}
	specs := append([]string{base}, cands...)
	var sides []manifest.Resolved
	var labels []string
	for i, text := range specs {
		flag, label := flags.Cand, "cand"
		if len(cands) > 1 {
			label = fmt.Sprintf("cand%d", i)
		}
		side := m
		if i == 0 {
			flag, label = flags.Base, "base"
		}
		if text != "" || (i > 0 && !aa) {
			s, err := ParseSpec(flag, text)
			if err != nil {
				return nil, nil, err
			}
			if side, err = s.Manifest(flag, src, m); err != nil {
				return nil, nil, err
			}
			if s.Kind == SpecVersion && !aa && !slices.Contains(specs[:i], text) {
				label = s.Value // a version names its side (runs/NN-v0.40.0)
			}
		}
		if flags.Place != nil {
			if side, err = flags.Place(side); err != nil {
				return nil, nil, exitcode.With(fmt.Errorf("%s %q: %w", flag, text, err), exitcode.Usage)
			}
		}
		r, err := side.Resolve()
		if err != nil {
			return nil, nil, exitcode.With(fmt.Errorf("%s %q: %w", flag, text, err), exitcode.Usage)
		}
		sides = append(sides, r)
		labels = append(labels, label)
	}
	return sides, labels, nil
}
