package cometbft

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestSetStateSyncTrust checks that the trusted height and hash replace
// config.toml's, and that a config without them is an error.
func TestSetStateSyncTrust(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[statesync]\nenable = true\ntrust_height = 0\ntrust_hash = ''\ntrust_period = '168h0m0s'\n"
	if err := os.WriteFile(ConfigFile(home), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	hash := strings.Repeat("AB", 32)
	if err := SetStateSyncTrust(home, 42, hash); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ConfigFile(home))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		StateSync struct {
			TrustHeight int64  `toml:"trust_height"`
			TrustHash   string `toml:"trust_hash"`
			TrustPeriod string `toml:"trust_period"`
		} `toml:"statesync"`
	}
	if err := toml.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if s := got.StateSync; s.TrustHeight != 42 || s.TrustHash != hash || s.TrustPeriod != "168h0m0s" {
		t.Errorf("statesync %+v\n%s", s, b)
	}
	if err := os.WriteFile(ConfigFile(home), []byte("[statesync]\nenable = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetStateSyncTrust(home, 42, hash); err == nil {
		t.Error("no error for a config without trust_height and trust_hash")
	}
}

// TestValidatorUpdatesAppConfig checks that the validator updates go into
// app.toml by each validator's public key, as the e2e runner writes them.
func TestValidatorUpdatesAppConfig(t *testing.T) {
	dir := t.TempDir()
	var homes []Home
	for name, key := range map[string]string{"a": "QUFB", "b": "QkJC"} {
		h := Home{Name: name, Dir: filepath.Join(dir, name)}
		if err := os.MkdirAll(filepath.Join(h.Dir, "config"), 0o755); err != nil {
			t.Fatal(err)
		}
		pv := `{"address":"00","pub_key":{"type":"tendermint/PubKeyEd25519","value":"` + key + `"},"priv_key":{"type":"tendermint/PrivKeyEd25519","value":""}}`
		if err := os.WriteFile(PrivValidatorKeyFile(h.Dir), []byte(pv), 0o600); err != nil {
			t.Fatal(err)
		}
		homes = append(homes, h)
	}
	spec := Spec{ChainID: "c", App: AppE2E, AppConfig: map[string]any{"vote_extensions_enable_height": int64(1)}, ValidatorUpdates: map[int64]map[string]int64{3: {"a": 5, "b": 0}, 10: {"b": 7}}}
	updates, err := validatorUpdates(spec, homes)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeAppConfig(spec, NodeSpec{Name: "a", Mode: ModeValidator}, homes[0], updates); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(AppConfigFile(homes[0].Dir))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ValidatorUpdate map[string]map[string]int64 `toml:"validator_update"`
		VEHeight        int64                       `toml:"vote_extensions_enable_height"`
	}
	if err := toml.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got.VEHeight != 1 {
		t.Errorf("vote_extensions_enable_height %d, want 1 (a key after the validator_update table is the table's)\n%s", got.VEHeight, b)
	}
	want := map[string]map[string]int64{"3": {"QUFB": 5, "QkJC": 0}, "10": {"QkJC": 7}}
	if len(got.ValidatorUpdate) != len(want) {
		t.Fatalf("validator_update %v, want %v\n%s", got.ValidatorUpdate, want, b)
	}
	for h, vals := range want {
		for k, p := range vals {
			if got.ValidatorUpdate[h][k] != p || len(got.ValidatorUpdate[h]) != len(vals) {
				t.Errorf("validator_update.%s %v, want %v", h, got.ValidatorUpdate[h], vals)
			}
		}
	}
	spec.ValidatorUpdates[4] = map[string]int64{"nobody": 1}
	if _, err := validatorUpdates(spec, homes); err == nil {
		t.Error("no error for an update of no node")
	}
}
