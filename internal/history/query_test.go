package history

import (
	"errors"
	"testing"
	"time"
)

func TestQueryFilter(t *testing.T) {
	now := day(10)
	for _, c := range []struct {
		name  string
		q     Query
		want  Filter
		field string // of the FieldError; "" for none
	}{
		{"empty", Query{}, Filter{}, ""},
		{"fields", Query{Release: "v0.38", Label: "l", Manifest: "ab", Host: "EPYC", Series: "3f", Kinds: []string{KindRun}, Status: []string{"complete"}},
			Filter{Release: "v0.38", Label: "l", Manifest: "ab", Host: "EPYC", Series: "3f", Kinds: []string{KindRun}, Status: []string{"complete"}}, ""},
		{"times", Query{Since: "2d", Until: "2026-11-11"}, Filter{Since: now.Add(-48 * time.Hour), Until: time.Date(2026, 11, 11, 0, 0, 0, 0, time.UTC)}, ""},
		{"bad kind", Query{Kinds: []string{"cell"}}, Filter{}, "kind"},
		{"bad since", Query{Since: "yesterday"}, Filter{}, "since"},
		{"bad until", Query{Until: "soon"}, Filter{}, "until"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.q.Filter(now)
			var fe FieldError
			switch {
			case c.field == "" && err != nil:
				t.Fatal(err)
			case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
				t.Fatalf("error %v, want one of field %s", err, c.field)
			case c.field != "":
				return
			}
			if got.Release != c.want.Release || got.Label != c.want.Label || got.Manifest != c.want.Manifest || got.Host != c.want.Host ||
				got.Series != c.want.Series || len(got.Kinds) != len(c.want.Kinds) || len(got.Status) != len(c.want.Status) ||
				!got.Since.Equal(c.want.Since) || !got.Until.Equal(c.want.Until) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
