package history

import (
	"slices"
	"testing"
	"time"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // "" for no version
	}{
		{"v0.38.26", "v0.38.26"},
		{"0.38.26", "v0.38.26"},
		{"v1.0.0-rc1", "v1.0.0-rc1"},
		{"v1.0.0-alpha.2+build.5", "v1.0.0-alpha.2"},
		{"v0.40", "v0.40.0"},
		{"v1", "v1.0.0"},
		{"v0.40.0 (reports itself as 0.40.0-dev)", "v0.40.0"},
		{"binary /usr/bin/cometbft", ""},
		{"mixed: v0.38.26 ×2, v1.0.0 ×2", ""},
		{"", ""},
		{"v", ""},
		{"v1..2", ""},
		{"v1.2.3.4", ""},
		{"v1.2.3-", ""},
		{"v1.x", ""},
	} {
		v, ok := ParseVersion(c.in)
		got := ""
		if ok {
			got = v.String()
		}
		if got != c.want {
			t.Errorf("ParseVersion(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCompareReleases(t *testing.T) {
	in := []string{"binary /b", "v1.0.0", "v0.38.9", "v1.0.0-rc1", "v0.38.26", "v1.0.0-rc.10", "v1.0.0-rc.2", "mixed: x", "v0.40.0", "v1.0.0-beta"}
	want := []string{"v0.38.9", "v0.38.26", "v0.40.0", "v1.0.0-beta", "v1.0.0-rc.2", "v1.0.0-rc.10", "v1.0.0-rc1", "v1.0.0", "binary /b", "mixed: x"}
	got := slices.Clone(in)
	slices.SortFunc(got, CompareReleases)
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v\nwant %v", got, want)
	}
}

// FuzzCompareReleases: a total order (antisymmetric, consistent with
// equality), and what parses prints and parses back to itself.
func FuzzCompareReleases(f *testing.F) {
	for _, s := range []string{"v0.38.26", "v1.0.0-rc1", "binary x", "v1.0.0-rc.2+b", "1", "v0.40.0 (x)"} {
		f.Add(s, "v0.38.9")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := CompareReleases(a, b), CompareReleases(b, a)
		if ab != -ba {
			t.Fatalf("CompareReleases(%q, %q) = %d, reversed %d", a, b, ab, ba)
		}
		if (ab == 0) != (a == b) {
			t.Fatalf("CompareReleases(%q, %q) = %d", a, b, ab)
		}
		if v, ok := ParseVersion(a); ok {
			w, ok := ParseVersion(v.String())
			if !ok || w != v {
				t.Fatalf("%q → %v → %v, %v", a, v, w, ok)
			}
		}
	})
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-11-01T10:30", time.Date(2026, 11, 1, 10, 30, 0, 0, time.UTC)},
		{"2026-11-01 10:30:05", time.Date(2026, 11, 1, 10, 30, 5, 0, time.UTC)},
		{"2026-11-01T10:30:00+01:00", time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)},
		{"7d", now.Add(-7 * 24 * time.Hour)},
		{"36h", now.Add(-36 * time.Hour)},
		{"1.5w", now.Add(-252 * time.Hour)},
		{" 30m ", now.Add(-30 * time.Minute)},
	} {
		got, err := ParseTime(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "d", "7y", "-1d", "NaNd", "Infh", "1e300d", "2026-13-01", "yesterday"} {
		if got, err := ParseTime(bad, now); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", bad, got)
		}
	}
}

// FuzzParseTime: never a panic; an age is never after now; a date written
// back parses to itself.
func FuzzParseTime(f *testing.F) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"2026-11-01", "7d", "1.5w", "2026-11-01T10:30:00Z", "0x1p3h", "9e18s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s, now)
		if err != nil {
			return
		}
		back, err := ParseTime(got.Format(time.RFC3339Nano), now)
		if err != nil || !back.Equal(got) {
			t.Fatalf("%q → %v → %v, %v", s, got, back, err)
		}
	})
}
