package cometbft

import (
	"strings"
	"testing"
)

func TestLineOf(t *testing.T) {
	for _, c := range []struct {
		v, prefix, err string
	}{
		{"v0.34.35", "v0.34", ""},
		{"v0.37.18", "v0.37", ""},
		{"v0.38.26", "v0.38", ""},
		{"v0.38.0-rc3", "v0.38", ""},
		{"v0.39.4", "v0.39", ""},
		{DefaultVersion, "v0.40", ""},
		{"v1.0.1", "v1.0", ""},
		{"v0.4.0", "", "no release line"},
		{"v2.0.0", "", "no release line"},
		{"0.38.1", "", "malformed"},
		{"v0.38", "", "malformed"},
		{"latest", "", "malformed"},
	} {
		l, err := LineOf(c.v)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("LineOf(%q) error %v, want %q", c.v, err, c.err)
			}
			continue
		}
		if err != nil || l.Prefix != c.prefix {
			t.Errorf("LineOf(%q) = %q, %v; want %q", c.v, l.Prefix, err, c.prefix)
		}
	}
}

func TestOlder(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"v0.38.26", "v0.40.0", true},
		{"v0.40.0", "v0.38.26", false},
		{"v0.38.9", "v0.38.26", true},
		{"v0.38.0-rc3", "v0.38.0", true},
		{"v0.38.0", "v0.38.0-rc3", false},
		{"v0.38.0", "v0.38.0", false},
		{"v1.0.1", "v0.40.0", false},
		{"v0.40.0", "junk", true},
		{"junk", "v0.40.0", false},
	} {
		if got := Older(c.a, c.b); got != c.want {
			t.Errorf("Older(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
