package results

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestHostRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(filepath.Join(dir, HostFile), HostHeader)
	if err != nil {
		t.Fatal(err)
	}
	want := []HostSample{
		{Time: 1, Cores: 2, Busy: 1.5, Steal: 0.25, Testnet: 0.75, Harness: 0.05, Load1: 3.2},
		{Time: 2, Cores: 2, Busy: 0.5, Testnet: 0.75, Harness: 0.05, Load1: -1},
	}
	for i := range want {
		if err := w.Write(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadHost(dir)
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, %v", got, err)
	}
	if o := got[0].Other(); o < 0.6999 || o > 0.7001 {
		t.Errorf("other %v, want 1.5 − 0.75 − 0.05 = 0.7", o)
	}
	if o := got[1].Other(); o != 0 {
		t.Errorf("other %v, want 0 (the testnet took more than /proc/stat's busy: clipped)", o)
	}
}

// FuzzHostRow: a row that parses writes back as the same row.
func FuzzHostRow(f *testing.F) {
	f.Add("1764000000000000000,2,1.500,0.000,0.750,0.050,3.20")
	f.Add("1,1,x,0,0,0,0")
	f.Fuzz(func(t *testing.T, line string) {
		var h HostSample
		if h.parse(strings.Split(line, ",")) != nil {
			return
		}
		var back HostSample
		if err := back.parse(strings.Split(string(h.AppendCSV(nil)), ",")); err != nil {
			t.Fatalf("%q → %q does not parse: %v", line, h.AppendCSV(nil), err)
		}
		again := back.AppendCSV(nil)
		if string(again) != string(h.AppendCSV(nil)) {
			t.Fatalf("%q: %q then %q", line, h.AppendCSV(nil), again)
		}
	})
}
