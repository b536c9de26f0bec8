package history

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Query is a Filter as people write one, on a command line (cometlab
// history's flags) or in a URL (cometlab serve's query): every field a
// string, times as ParseTime reads them. Query.Filter is the one way from
// either to a Filter.
type Query struct {
	Release  string   `json:"release,omitempty"`
	Label    string   `json:"label,omitempty"`
	Manifest string   `json:"manifest,omitempty"`
	Host     string   `json:"host,omitempty"`
	Series   string   `json:"series,omitempty"`
	Since    string   `json:"since,omitempty"`
	Until    string   `json:"until,omitempty"`
	Kinds    []string `json:"kind,omitempty"`
	Status   []string `json:"status,omitempty"`
}

// FieldError is a Query field that cannot be read: Field names it ("kind",
// "since"); the command line writes it as its flag, a page as its input.
type FieldError struct {
	Field string
	Err   error
}

func (e FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e FieldError) Unwrap() error { return e.Err }

// Filter is the Filter q selects, ages read at now; a field that cannot be
// read is a FieldError. Limit and Figures are the caller's.
func (q Query) Filter(now time.Time) (Filter, error) {
	f := Filter{Release: q.Release, Label: q.Label, Manifest: q.Manifest, Host: q.Host, Series: q.Series, Status: q.Status, Kinds: q.Kinds}
	for _, k := range q.Kinds {
		if !slices.Contains(Kinds(), k) {
			return f, FieldError{"kind", fmt.Errorf("%q: want one of %s", k, strings.Join(Kinds(), ", "))}
		}
	}
	var err error
	if q.Since != "" {
		if f.Since, err = ParseTime(q.Since, now); err != nil {
			return f, FieldError{"since", err}
		}
	}
	if q.Until != "" {
		if f.Until, err = ParseTime(q.Until, now); err != nil {
			return f, FieldError{"until", err}
		}
	}
	return f, nil
}
