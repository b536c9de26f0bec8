package manifest

import (
	"fmt"
	"slices"
	"strings"
)

// Source is the one value a command line makes of a manifest: the file
// (or the built-in default), how it is read, and the flags laid over it.
// Every mode and every side of an A/B experiment builds its manifest
// from a Source ([Source.Manifest]), so that a flag reaches every side
// alike; a new flag is a field of [Overrides], not a branch in a command.
type Source struct {
	// Path is the manifest file; "" is the built-in [Default].
	Path string
	// Read says how the file is read: its format and leniency.
	Read ReadOptions
	// Overrides are the flags the user set, laid over the file.
	Overrides Overrides
}

// Manifest reads s's file (or takes the default) the way s.Read says,
// then lays s.Overrides over it ([Manifest.Apply]). An invalid format is
// an error even without a file, as the flag was given for nothing.
func (s Source) Manifest() (Manifest, error) {
	m := Default()
	if f := s.Read.Format; f != "" && !slices.Contains(Formats, f) {
		return m, fmt.Errorf("--format: invalid manifest format %q (want %s)", f, strings.Join(Formats, ", "))
	}
	if s.Path != "" {
		var err error
		if m, _, err = LoadFile(s.Path, s.Read); err != nil {
			return m, err
		}
	}
	if err := m.Apply(s.Overrides); err != nil {
		return m, err
	}
	return m, nil
}

// Resolve is [Source.Manifest] then [Manifest.Resolve]: the manifest and
// the testnet it resolves to.
func (s Source) Resolve() (Manifest, Resolved, error) {
	m, err := s.Manifest()
	if err != nil {
		return m, Resolved{}, err
	}
	r, err := m.Resolve()
	return m, r, err
}

// WithPath is s reading the file at path instead, in the same format and
// leniency and with the same flags: an A/B side given as a manifest file.
func (s Source) WithPath(path string) Source {
	s.Path = path
	return s
}
