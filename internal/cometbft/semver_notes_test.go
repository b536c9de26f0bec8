package cometbft

import (
	"reflect"
	"testing"
)

// TestParseReleaseNotes: the releases after from up to to, newest first as
// the file lists them, each section with its entries counted (an empty
// section left out), stopping at the first release not newer than from —
// of another line too (v0.38.21 ends a v0.38.26 → v0.40.0 list).
func TestParseReleaseNotes(t *testing.T) {
	const changelog = `# CHANGELOG

## UNRELEASED

### BUG FIXES

- not released

## v0.40.0

*July 27, 2026*

### DEPENDENCIES

### BUG FIXES

- one
  (a continuation line)
- two

### FEATURES

- three

## v0.39.3

### DEPENDENCIES

- bump

## v0.38.21

### BUG FIXES

- older
`
	got := ParseReleaseNotes(changelog, "v0.38.26", "v0.40.0")
	want := []NotesRelease{{Version: "v0.40.0", Sections: []string{"BUG FIXES (2)", "FEATURES (1)"}},
		{Version: "v0.39.3", Sections: []string{"DEPENDENCIES (1)"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := ParseReleaseNotes(changelog, "v0.39.3", "v0.40.0"); len(got) != 1 {
		t.Errorf("from v0.39.3: %+v, want v0.40.0 alone", got)
	}
	if got := ParseReleaseNotes(changelog, "v0.38.26", "v9.9.9"); got != nil {
		t.Errorf("a release the file does not list: %+v", got)
	}
}
