package shape

import (
	"strings"
	"testing"
	"time"
)

func TestParseTrace(t *testing.T) {
	got, err := ParseTrace("t.csv", strings.NewReader("# a day, compressed\noffset_s,rate\n0,200\n\n30.5, 800\n60,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{0, 200}, {30500 * time.Millisecond, 800}, {60 * time.Second, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

func TestParseTraceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0,1\n2,5\n1,3\n", "t.csv:3: offset 1 s is not after the previous one (2 s): offsets must increase"},
		{"0,1\n1,1\n1,2\n", "t.csv:3: offset 1 s is not after"},
		{"0,1\n5,-2\n", `t.csv:2: rate "-2": want tx/s >= 0`},
		{"0,1\n5,abc\n", `t.csv:2: rate "abc"`},
		{"0,1\nx,4\n", `t.csv:2: offset "x"`},
		{"0,NaN\n", `t.csv:1: rate "NaN"`},
		{"0,inf\n", `t.csv:1: rate "inf"`},
		{"0,0x10\n", `t.csv:1: rate "0x10"`},
		{"-1,4\n", `t.csv:1: offset "-1"`},
		{"# c\n3,4\n", "t.csv:2: first offset 3 s: want 0"},
		{"0,1,2\n", "t.csv:1: want two fields offset_s,rate"},
		{"0\n", "t.csv:1: want two fields"},
		{"", "t.csv: no points"},
		{"offset_s,rate\n", "t.csv: no points"},
		{"0,1\noffset_s,rate\n", `t.csv:2: offset "offset_s"`},
	}
	for _, tt := range tests {
		_, err := ParseTrace("t.csv", strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseTrace checks that a trace either parses into points a Spec
// accepts, or fails naming the file (and a line).
func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{"0,1\n", "offset_s,rate\n0,200\n30,800\n", "# x\n0,1e3\n1.5,0\n", "0,1\n0,2\n", "0,-1\n", "1,2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseTrace("f.csv", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := (Spec{Kind: Trace, Duration: time.Second, Trace: ps}).Validate(); err != nil {
			t.Fatalf("parsed %v, which the Spec refuses: %v", ps, err)
		}
	})
}
