package links

import (
	"strings"
	"testing"
	"time"
)

func TestAWSMatrix(t *testing.T) {
	m := AWS()
	if len(m.Zones) != 13 {
		t.Fatalf("%d zones, want 13", len(m.Zones))
	}
	for _, tc := range []struct {
		a, b string
		want time.Duration
	}{
		{"N_Virginia", "Canada", 7 * time.Millisecond},
		{"Canada", "N_California", 38 * time.Millisecond}, // the file is not quite symmetric
		{"N_California", "Canada", 39 * time.Millisecond},
		{"Canada", "N_Virginia", 7 * time.Millisecond},
		{"London", "Ireland", 5 * time.Millisecond},
		{"Tokyo", "Tokyo", 0},
	} {
		if got, ok := m.Delay(tc.a, tc.b); !ok || got != tc.want {
			t.Errorf("%s → %s: %s, %v; want %s", tc.a, tc.b, got, ok, tc.want)
		}
	}
	if _, ok := m.Delay("Mars", "Tokyo"); ok {
		t.Error("a zone not in the matrix has a delay")
	}
}

func TestParseMatrixErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "m.csv:0: no header"},
		{"header only", "From/to,a,b\n", "m.csv:1: 0 rows for 2 zones"},
		{"duplicate zone", "From/to,a,a\n", `m.csv:1: zone "a" named twice`},
		{"short row", "From/to,a,b\na,0\n", "m.csv:2: want 3 fields"},
		{"order", "From/to,a,b\nb,0,1\n", `m.csv:2: row 1 is "b", want "a"`},
		{"negative", "From/to,a,b\na,0,-1\n", `m.csv:2: a → b: "-1" is not a delay`},
		{"text", "From/to,a,b\na,0,far\n", `m.csv:2: a → b: "far" is not a delay`},
		{"diagonal", "From/to,a,b\na,3,1\n", "m.csv:2: a → a: a zone's delay to itself must be 0"},
		{"extra row", "From/to,a\na,0\nb,0\n", "m.csv:3: more rows than the header's 1 zones"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMatrix("m.csv", strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	m, err := ParseMatrix("m.csv", strings.NewReader("# comment\nFrom/to, a, b\na,0,1.5\nb,1.5,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := m.Delay("b", "a"); d != 1500*time.Microsecond {
		t.Errorf("b → a %s, want 1.5ms", d)
	}
}

// FuzzParseMatrix: the parser never panics, and a matrix it accepts has a
// zero diagonal and non-negative delays for every ordered pair.
func FuzzParseMatrix(f *testing.F) {
	f.Add(string(awsLatencies))
	f.Add("From/to,a,b\na,0,1\nb,1,0\n")
	f.Add("From/to,a\na,0\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseMatrix("f.csv", strings.NewReader(in))
		if err != nil {
			return
		}
		for _, a := range m.Zones {
			for _, b := range m.Zones {
				ab, ok := m.Delay(a, b)
				if !ok || ab < 0 || (a == b && ab != 0) {
					t.Fatalf("accepted %q: %s→%s %s, %v", in, a, b, ab, ok)
				}
			}
		}
	})
}

func TestBandwidthBetween(t *testing.T) {
	b := Bandwidth{Mbps: 100, Pairs: map[[2]string]float64{
		{"a", "b"}: 10, {"b", "a"}: 20, {"a", "c"}: 0,
	}}
	for _, tc := range []struct {
		name     string
		b        Bandwidth
		from, to string
		want     float64
	}{
		{"own value", b, "a", "b", 10},
		{"own value of the reverse pair", b, "b", "a", 20},
		{"own 0: no limit despite the default", b, "a", "c", 0},
		{"default", b, "c", "a", 100},
		{"default for a pair of other zones", b, "b", "c", 100},
		{"one zone is not limited", b, "a", "a", 0},
		{"no default, no pairs", Bandwidth{}, "a", "b", 0},
		{"pairs only", Bandwidth{Pairs: map[[2]string]float64{{"a", "b"}: 5}}, "b", "c", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.Between(tc.from, tc.to); got != tc.want {
				t.Errorf("Between(%s, %s) = %g, want %g", tc.from, tc.to, got, tc.want)
			}
		})
	}
}
