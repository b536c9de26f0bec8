package manifest

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

func ptr[T any](v T) *T { return &v }

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string // fixture to start from; "" for Default
		o       Overrides
		wantErr []string // substrings of Apply's error
		check   func(t *testing.T, r Resolved)
	}{
		{
			name: "no flags",
			file: "full.good.toml",
			check: func(t *testing.T, r Resolved) {
				want := withKeyType(goodManifests["full.good.toml"])
				want.TimeScale = 1
				if !reflect.DeepEqual(r, want) {
					t.Errorf("empty Overrides changed the manifest: %+v", r)
				}
			},
		},
		{
			name: "flags win over the file",
			file: "full.good.toml",
			o: Overrides{
				Connections: ptr(8), Rate: ptr(1000.0), Size: ptr(512), Duration: ptr(90 * time.Second),
				Pacing: ptr(PacingEven), Target: ptr("val-b"), DrainTimeout: ptr(45 * time.Second),
			},
			check: func(t *testing.T, r Resolved) {
				want := Workload{Connections: 8, Rate: 1000, Size: 512, Duration: 90 * time.Second, Pacing: PacingEven,
					Target: "val-b", DrainTimeout: 45 * time.Second, LateThreshold: 5 * time.Millisecond}
				if !reflect.DeepEqual(r.Load, want) {
					t.Errorf("Load = %+v, want %+v", r.Load, want)
				}
			},
		},
		{
			name: "validators",
			o:    Overrides{Validators: ptr(7)},
			check: func(t *testing.T, r Resolved) {
				if len(r.Nodes) != 7 || r.Nodes[6].Name != "validator07" {
					t.Errorf("Nodes = %+v, want validator01…validator07", r.Nodes)
				}
			},
		},
		{
			name:    "too many validators",
			o:       Overrides{Validators: ptr(MaxValidators + 1)},
			wantErr: []string{"--validators: must be between 1 and 1000, got 1001"},
		},
		{
			name:    "validators conflict with node tables",
			file:    "mixed.good.toml",
			o:       Overrides{Validators: ptr(3)},
			wantErr: []string{"--validators conflicts with the [node] tables in " + filepath.Join(fixtures, "mixed.good.toml")},
		},
		{
			name:    "validators conflict with node tables in a manifest built in code",
			o:       Overrides{Validators: ptr(3)},
			wantErr: []string{"--validators conflicts with the [node] tables in the manifest"},
		},
		{
			name: "binary",
			o:    Overrides{CometBFTBinary: ptr("/bin/cometbft")},
			check: func(t *testing.T, r Resolved) {
				if r.CometBFTBinary != "/bin/cometbft" || r.CometBFTVersion != "" || r.Nodes[0].Version != "" {
					t.Errorf("got binary %q, version %q, node version %q; want the binary only",
						r.CometBFTBinary, r.CometBFTVersion, r.Nodes[0].Version)
				}
			},
		},
		{
			name: "a version flag clears the file's binary",
			file: "binary.good.toml",
			o:    Overrides{CometBFTVersion: ptr("v0.38.17")},
			check: func(t *testing.T, r Resolved) {
				if r.CometBFTBinary != "" || r.CometBFTVersion != "v0.38.17" || r.Nodes[0].Version != "v0.38.17" || r.Nodes[1].Version != "v0.38.0" {
					t.Errorf("got binary %q, version %q, nodes %+v", r.CometBFTBinary, r.CometBFTVersion, r.Nodes)
				}
			},
		},
		{
			name: "every bad flag at once",
			o: Overrides{
				Connections: ptr(0), Rate: ptr(-1.0), Size: ptr(257), Duration: ptr(time.Duration(0)),
				Validators: ptr(0), CometBFTVersion: ptr("1.0"), Pacing: ptr("jitter"), Target: ptr(""),
				DrainTimeout: ptr(-time.Second),
			},
			wantErr: []string{
				"--connections: must be >= 1, got 0",
				"--rate: must be > 0 and finite, got -1",
				"--size: must be even, got 257",
				"--duration: must be > 0, got 0s",
				"--validators: must be between 1 and 1000, got 0",
				`--cometbft-version: malformed version "1.0"`,
				`--pacing: invalid pacing "jitter"`,
				"--target: must not be empty",
				"--drain-timeout: must be >= 0, got -1s",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Default()
			if tc.file != "" {
				var err error
				if m, err = Load(filepath.Join(fixtures, tc.file)); err != nil {
					t.Fatal(err)
				}
			} else if strings.Contains(tc.name, "built in code") {
				m.Nodes = map[string]ManifestNode{"a": {}}
			}
			before := exported(m)
			err := m.Apply(tc.o)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatal("Apply: no error")
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Apply error does not contain %q:\n%v", want, err)
					}
				}
				if n := len(problemsOf(err)); n != len(tc.wantErr) {
					t.Errorf("got %d problems, want %d:\n%v", n, len(tc.wantErr), err)
				}
				if !reflect.DeepEqual(exported(m), before) {
					t.Error("a failed Apply changed the manifest")
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			tc.check(t, r)
		})
	}
}

// TestApplyNamesFlagInLaterErrors checks that a problem found by Resolve in
// a value a flag set names the flag, not the file's line.
func TestApplyNamesFlagInLaterErrors(t *testing.T) {
	m, err := Load(filepath.Join(fixtures, "full.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(Overrides{Target: ptr("nobody"), Rate: ptr(5.0)}); err != nil {
		t.Fatal(err)
	}
	m.Load.Connections = 0 // still the file's key: named by its line
	_, err = m.Resolve()
	want := filepath.Join(fixtures, "full.good.toml") + ":21:1: load.connections: must be >= 1, got 0\n" +
		`--target: no node named "nobody"`
	if err == nil || err.Error() != want {
		t.Errorf("Resolve error:\n%v\nwant:\n%s", err, want)
	}

	// A copy made between two Applies does not see the second's flags.
	m2, err := Load(filepath.Join(fixtures, "full.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.Apply(Overrides{Rate: ptr(5.0)}); err != nil {
		t.Fatal(err)
	}
	copied := m2
	if err := m2.Apply(Overrides{Target: ptr("nobody")}); err != nil {
		t.Fatal(err)
	}
	copied.Load.Target = "nobody"
	_, err = copied.Resolve()
	want = filepath.Join(fixtures, "full.good.toml") + `:26:1: load.target: no node named "nobody"`
	if err == nil || err.Error() != want {
		t.Errorf("copy made before Apply: %v, want %q", err, want)
	}
}

// TestApplyShape checks the shape flags: --shape replaces the file's shape
// whole, and problems with a flag's value name the flag.
func TestApplyShape(t *testing.T) {
	m, err := Load(filepath.Join(fixtures, "shape-square.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(Overrides{Shape: ptr(shape.Ramp), Steps: []float64{100, 200}, Step: ptr(20 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if want := (shape.Spec{Kind: shape.Ramp, Steps: []float64{100, 200}, Step: 20 * time.Second}); !reflect.DeepEqual(r.Load.Shape, want) {
		t.Errorf("shape %+v, want %+v", r.Load.Shape, want)
	}
	if got, want := r.Load.ExpectedTxs(), int64(2*(100*20+200*40)); got != want {
		t.Errorf("ExpectedTxs = %d, want %d", got, want)
	}

	for _, tc := range []struct {
		o    Overrides
		want string
	}{
		{Overrides{Shape: ptr("zigzag")}, `--shape: invalid shape "zigzag"`},
		{Overrides{Shape: ptr(shape.Square), On: ptr(time.Duration(0))}, "--on: must be > 0, got 0s"},
		{Overrides{Shape: ptr(shape.Square), On: ptr(time.Second)}, `--shape: shape "square" needs off`},
		{Overrides{Shape: ptr(shape.Ramp), RateTo: ptr(10.0), Period: ptr(time.Second)}, `--period: only for shape = "sine" (shape is "ramp")`},
		{Overrides{Shape: ptr(shape.Sine), Amplitude: ptr(1e9), Period: ptr(time.Second)}, "--amplitude: must be > 0 and <= rate"},
		{Overrides{Shape: ptr(shape.Trace), Trace: ptr("no-such-trace.csv")}, "--trace: trace: open no-such-trace.csv"},
	} {
		m := Default()
		err := m.Apply(tc.o)
		if err == nil {
			err = m.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.o, err, tc.want)
		}
	}
}
