package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/history"
)

// readQuery is the history.Query of a page's URL: the parameters named as
// cometlab history's flags (release, label, manifest, host, series, since,
// until, kind, status), kind and status repeated or comma-separated.
// Empty values (a form's "any") select everything.
func readQuery(v url.Values) history.Query {
	return history.Query{
		Release: strings.TrimSpace(v.Get("release")), Label: strings.TrimSpace(v.Get("label")),
		Manifest: strings.TrimSpace(v.Get("manifest")), Host: strings.TrimSpace(v.Get("host")),
		Series: strings.TrimSpace(v.Get("series")), Since: strings.TrimSpace(v.Get("since")), Until: strings.TrimSpace(v.Get("until")),
		Kinds: list(v["kind"]), Status: list(v["status"]),
	}
}

// list splits repeated and comma-separated values, dropping empty ones.
func list(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// values is q as URL parameters: what readQuery reads back.
func values(q history.Query) url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("release", q.Release)
	set("label", q.Label)
	set("manifest", q.Manifest)
	set("host", q.Host)
	set("series", q.Series)
	set("since", q.Since)
	set("until", q.Until)
	if len(q.Kinds) > 0 {
		v.Set("kind", strings.Join(q.Kinds, ","))
	}
	if len(q.Status) > 0 {
		v.Set("status", strings.Join(q.Status, ","))
	}
	return v
}

// readLimit is the parameter limit: def when absent, 0 for all; a bad
// value is a FieldError.
func readLimit(v url.Values, def int) (int, error) {
	s := strings.TrimSpace(v.Get("limit"))
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, history.FieldError{Field: "limit", Err: strconvError(s)}
	}
	return n, nil
}

type strconvError string

func (e strconvError) Error() string { return strconv.Quote(string(e)) + ": want 0 (all) or more" }

// errorf is fmt.Errorf, for the page values' FieldErrors.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
