package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

func init() {
	l := defaultLoad
	l.Rate, l.Duration = 50, 15*time.Second
	goodManifests["timescale.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: validators(4, "v0.40.0"), Load: l, TimeScale: 4,
	}
	goodManifests["timescale-auto.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: validators(4, "v0.40.0"), Load: defaultLoad, TimeScale: 1, TimeScaleAuto: true,
	}
	badManifests["timescale-low.bad.toml"] = []string{
		"timescale-low.bad.toml:1:1: time_scale: must be a number >= 1 (1 runs in real time), got 0.5"}
	badManifests["timescale-type.bad.toml"] = []string{
		`timescale-type.bad.toml:1:1: time_scale: want a number >= 1 or "auto", got a TOML boolean`}
	badManifests["timescale-pbts.bad.toml"] = []string{
		"timescale-pbts.bad.toml:2:1: time_scale: v1.0.1's genesis synchrony.precision (505ms) × 60 = 30.3s is above CometBFT's bound 30s"}
	badManifests["timescale-sentinel.bad.toml"] = []string{
		"timescale-sentinel.bad.toml:1:1: time_scale: the sentinel's rates and timers are not scaled"}
	badManifests["timescale-zones.bad.toml"] = []string{
		"timescale-zones.bad.toml:1:1: time_scale: the round trip between zones London and Sydney, 262 ms, takes 4.2 s at time scale 16, and CometBFT's p2p transport gives a connection's handshake 3s, hard-coded"}
	badManifests["timescale-hosts.bad.toml"] = []string{
		"timescale-hosts.bad.toml:3:1: time_scale: a time-scaled run scales every delay and rate: on [host.*] testnets the hosts' own network (its delays and bandwidth) cannot be scaled"}
}

// TestTimeScaleFlag checks --time-scale (and --set time_scale=): a
// number >= 1 sets time_scale and is named by the flag when refused.
func TestTimeScaleFlag(t *testing.T) {
	for _, c := range []struct {
		v    string
		want float64
		err  string
	}{
		{"4", 4, ""}, {"1", 1, ""}, {"2.5", 2.5, ""},
		{"0.9", 0, "--time-scale: must be a number >= 1 (1 runs in real time), got 0.9"},
		{"NaN", 0, "--time-scale: must be a number >= 1"},
		{"fast", 0, `--time-scale: want a number >= 1 (or "auto"), got "fast"`},
		{"auto", 1, ""}, {" auto ", 1, ""},
		{"101", 0, "--time-scale: must be <= 100"},
	} {
		for _, how := range []string{"flag", "set"} {
			m := Default()
			var err error
			if how == "flag" {
				err = m.Apply(Overrides{TimeScale: &c.v})
			} else {
				err = m.Set("time_scale", c.v)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("%s %q: error %v, want %q", how, c.v, err, c.err)
				}
				continue
			}
			r, rerr := m.Resolve()
			if err != nil || rerr != nil || r.TimeScale != c.want || r.TimeScaleAuto != strings.Contains(c.v, "auto") {
				t.Errorf("%s %q: time scale %v auto %v (%v, %v), want %v", how, c.v, r.TimeScale, r.TimeScaleAuto, err, rerr, c.want)
			}
		}
	}
}

// TestHostTime checks what the host runs at k = 4: the load's times ×4
// and rates ÷4 (the same expected count), the perturbations', the
// partition's and the rotation's times ×4; nodes, config and zones left
// to cometbft and links; the model untouched; idempotent; k = 1 the
// identity.
func TestHostTime(t *testing.T) {
	model := Resolved{
		TimeScale: 4, Config: map[string]any{"consensus.timeout_commit": "1s"},
		Load: Workload{Connections: 2, Rate: 50, Duration: 15 * time.Second, DrainTimeout: time.Minute, LateThreshold: 10 * time.Millisecond,
			Shape:   shape.Spec{Kind: shape.Ramp, Steps: []float64{50, 100}, Step: 5 * time.Second},
			Clients: []Client{{Name: "a", Connections: 1, Rate: 40}, {Name: "b", Connections: 1, Rate: 60}}},
		Perturbations: []Perturbation{{Node: "v3", Action: ActionKill, At: 5 * time.Second, Down: 2 * time.Second, Every: 4 * time.Second, Count: 2}},
		Partition:     &Partition{Split: "50/50", At: 3 * time.Second, Duration: 6 * time.Second},
		Rotate:        &Rotation{Nodes: []string{"ephemeral01"}, Dwell: 10 * time.Second},
	}
	before := model.Load.ExpectedTxs()
	h := model.HostTime()
	l := h.Load
	if l.Rate != 12.5 || l.Duration != time.Minute || l.DrainTimeout != 4*time.Minute || l.LateThreshold != 40*time.Millisecond {
		t.Errorf("load at k = 4: rate %v, duration %v, drain %v, late %v", l.Rate, l.Duration, l.DrainTimeout, l.LateThreshold)
	}
	if !reflect.DeepEqual(l.Shape.Steps, []float64{12.5, 25}) || l.Shape.Step != 20*time.Second || l.Shape.Rate != 0 || l.Shape.Duration != 0 {
		t.Errorf("shape at k = 4: %+v", l.Shape)
	}
	if l.Clients[0].Rate != 10 || l.Clients[1].Rate != 15 {
		t.Errorf("clients at k = 4: %+v", l.Clients)
	}
	if got := l.ExpectedTxs(); got != before {
		t.Errorf("expected txs %d at k = 4, %d in the model", got, before)
	}
	p := h.Perturbations[0]
	if p.At != 20*time.Second || p.Down != 8*time.Second || p.Every != 16*time.Second || p.Count != 2 {
		t.Errorf("perturbation at k = 4: %+v", p)
	}
	if h.Partition.At != 12*time.Second || h.Partition.Duration != 24*time.Second || h.Rotate.Dwell != 40*time.Second {
		t.Errorf("partition %+v, rotation %+v at k = 4", h.Partition, h.Rotate)
	}
	if h.Config["consensus.timeout_commit"] != "1s" || h.TimeScale != 4 || !h.IsHostTime() {
		t.Errorf("config %v, time scale %v, host time %v: cometbft scales the config", h.Config, h.TimeScale, h.IsHostTime())
	}
	if model.Load.Rate != 50 || model.Load.Clients[0].Rate != 40 || model.Perturbations[0].At != 5*time.Second ||
		model.Partition.At != 3*time.Second || model.Rotate.Dwell != 10*time.Second || model.Load.Shape.Steps[0] != 50 {
		t.Error("HostTime changed the model")
	}
	if again := h.HostTime(); !reflect.DeepEqual(again, h) {
		t.Error("HostTime is not idempotent")
	}
	if _, err := Encode(h); err == nil {
		t.Error("Encode took a host-time view")
	}
	one := model
	one.TimeScale = 1
	if got := one.HostTime(); !reflect.DeepEqual(got, one) {
		t.Error("k = 1: HostTime is not the identity")
	}
}

// TestEncodeTimeScale checks manifest.toml: no time_scale key at k = 1
// (the file of an unscaled run is as it was), time_scale = 4 at k = 4,
// and each resolves to itself again.
func TestEncodeTimeScale(t *testing.T) {
	for _, k := range []string{"1", "4"} {
		m := Default()
		if err := m.Set("time_scale", k); err != nil {
			t.Fatal(err)
		}
		r, err := m.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		b, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		has := bytes.Contains(b, []byte("time_scale = 4.0\n"))
		if (k == "4") != has || (k == "1" && bytes.Contains(b, []byte("time_scale"))) {
			t.Errorf("k = %s: manifest.toml\n%s", k, b)
		}
		m2, err := Parse("manifest.toml", b)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := m2.Resolve()
		if err != nil || r2.TimeScale != r.TimeScale {
			t.Errorf("k = %s: re-read time scale %v (%v)", k, r2.TimeScale, err)
		}
	}
	d := Default()
	r, _ := d.Resolve()
	plain, _ := Encode(r)
	r.TimeScale = 1
	if one, _ := Encode(r); !bytes.Equal(one, plain) {
		t.Error("k = 1 changed manifest.toml")
	}
}

// TestTimeScaleAuto checks time_scale = "auto": encoded as written until
// k is chosen; WithTimeScale records the choice (manifest.toml then says
// k and resolves to it again) and refuses a k a release cannot run at.
func TestTimeScaleAuto(t *testing.T) {
	m := Default()
	auto := TimeScaleAuto
	if err := m.Apply(Overrides{TimeScale: &auto}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	text, err := Encode(r)
	if err != nil || !strings.Contains(string(text), `time_scale = 'auto'`) && !strings.Contains(string(text), `time_scale = "auto"`) {
		t.Errorf("auto encoded as (%v):\n%s", err, text)
	}
	c, err := r.WithTimeScale(8)
	if err != nil || c.TimeScale != 8 || c.TimeScaleAuto {
		t.Fatalf("WithTimeScale(8): %v, %v, %v", c.TimeScale, c.TimeScaleAuto, err)
	}
	text, err = Encode(c)
	if err != nil || !strings.Contains(string(text), "time_scale = 8.0") {
		t.Errorf("chosen k encoded as (%v):\n%s", err, text)
	}
	again, err := Parse("manifest.toml", text)
	if err == nil {
		var rr Resolved
		if rr, err = again.Resolve(); err == nil && (rr.TimeScale != 8 || rr.TimeScaleAuto) {
			t.Errorf("manifest.toml resolves to k %v auto %v", rr.TimeScale, rr.TimeScaleAuto)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []float64{0.5, 101} {
		if _, err := r.WithTimeScale(k); err == nil {
			t.Errorf("WithTimeScale(%v) taken", k)
		}
	}
	v1 := r
	v1.Nodes = validators(4, "v1.0.1")
	if _, err := v1.WithTimeScale(64); err == nil || !strings.Contains(err.Error(), "synchrony.precision") {
		t.Errorf("v1.0.1 at k = 64: %v, want the PBTS bound", err)
	}
}

// TestZonesHandshake checks the bound of a time scale with zones: the
// manifest refused at k = 16 (timescale-zones.bad.toml) runs at the k the
// refusal names, and on libp2p (its own transport) at any k.
func TestZonesHandshake(t *testing.T) {
	read := func(k string, libp2p bool) error {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "manifests", "timescale-zones.bad.toml"))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(data), "time_scale = 16", "time_scale = "+k, 1)
		if libp2p {
			text = "libp2p = true\n" + text
		}
		m, _, err := Read("zones.toml", []byte(text), ReadOptions{})
		if err != nil {
			return err
		}
		_, err = m.Resolve()
		return err
	}
	for _, tc := range []struct {
		k       string
		libp2p  bool
		refused bool
	}{{"16", false, true}, {"9.2", false, true}, {"9", false, false}, {"2", false, false}, {"16", true, false}} {
		err := read(tc.k, tc.libp2p)
		if refused := err != nil && strings.Contains(err.Error(), "hard-coded"); refused != tc.refused {
			t.Errorf("k = %s, libp2p %v: %v, want refused %v", tc.k, tc.libp2p, err, tc.refused)
		}
	}
}
