package manifest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Error is one problem with a manifest. Parse, Validate, Resolve and Apply
// return one *Error per problem, joined with [errors.Join]; use [errors.As]
// to get at the first, or the Unwrap() []error method of the joined error
// for all of them.
type Error struct {
	// File is the manifest's file name ("" when the manifest did not come
	// from a file).
	File string
	// Line and Column locate the key in File, from 1; 0 when the value came
	// from a default or a flag.
	Line, Column int
	// Field is the key's dotted path, e.g. "load.rate"; "" for a syntax
	// error that concerns no key.
	Field string
	// Flag is the command-line flag the value came from, e.g. "--rate"; ""
	// when it came from the file or a default.
	Flag string
	// Msg says what is wrong.
	Msg string
}

// Error formats e as "FILE:LINE:COL: FIELD: MSG", leaving out what is
// unknown; a value set by a flag is reported as "--FLAG: MSG".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Flag != "":
		b.WriteString(e.Flag)
		b.WriteString(": ")
	default:
		if e.File != "" {
			b.WriteString(e.File)
			if e.Line > 0 {
				fmt.Fprintf(&b, ":%d", e.Line)
				if e.Column > 0 {
					fmt.Fprintf(&b, ":%d", e.Column)
				}
			}
			b.WriteString(": ")
		} else if e.Line > 0 {
			fmt.Fprintf(&b, "line %d: ", e.Line)
		}
		if e.Field != "" {
			b.WriteString(e.Field)
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Msg)
	return b.String()
}

// position is where a key is set in the file.
type position struct {
	line, column int
}

// problems collects the errors found in one manifest.
type problems struct {
	m    *Manifest
	errs []*Error
}

// add records a problem with the key at the dotted path made of parts.
func (ps *problems) add(parts []string, format string, args ...any) {
	key := strings.Join(parts, ".")
	e := &Error{File: ps.m.file, Field: displayPath(parts), Msg: fmt.Sprintf(format, args...)}
	if flag, ok := ps.m.origin[key]; ok {
		e.Flag = flag
	} else if p := ps.m.pos[key]; len(p) > 0 {
		e.Line, e.Column = p[0].line, p[0].column
	}
	ps.errs = append(ps.errs, e)
}

// err joins the problems in file order: by line, then field; problems with
// no line come last.
func (ps *problems) err() error {
	return joinSorted(ps.errs)
}

func joinSorted(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *Error) int {
		if (a.Line == 0) != (b.Line == 0) {
			if a.Line == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), strings.Compare(a.Field, b.Field))
	})
	all := make([]error, len(errs))
	for i, e := range errs {
		all[i] = e
	}
	return errors.Join(all...)
}

// displayPath joins key parts with dots, quoting the parts that are not
// bare TOML keys, so that `node."Bad Name"` reads as the file would.
func displayPath(parts []string) string {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		if isBareKey(p) {
			quoted[i] = p
		} else {
			quoted[i] = strconv.Quote(p)
		}
	}
	return strings.Join(quoted, ".")
}

// isBareKey reports whether s is a TOML bare key: [A-Za-z0-9_-]+.
func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
