package cometbft

import (
	"strings"
	"testing"
)

func TestFeatures(t *testing.T) {
	for _, c := range []struct {
		version   string
		pbts, dog bool
	}{
		{"v0.34.33", false, false}, {"v0.38.26", false, false}, {"v0.40.0", false, false},
		{"v1.0.1", true, false}, {"v2.0.0-rc1", true, true},
	} {
		if got := GenesisHas(c.version, GenesisPBTSKey); got != c.pbts {
			t.Errorf("GenesisHas(%s, pbts) = %v, want %v", c.version, got, c.pbts)
		}
		for _, k := range []string{ConfigDOGEnabled, ConfigDOGRedundancy, ConfigDOGInterval} {
			if got := ConfigHas(c.version, k); got != c.dog {
				t.Errorf("ConfigHas(%s, %s) = %v, want %v", c.version, k, got, c.dog)
			}
		}
	}
	if got := FeatureProblem("v0.40.0", "PBTS", GenesisPBTSKey, GenesisHas); !strings.Contains(got, "v1.0, v2.0 only") {
		t.Errorf("FeatureProblem(v0.40.0, PBTS) = %q", got)
	}
	if got := FeatureProblem("v2.0.0-rc1", "DOG", ConfigDOGEnabled, ConfigHas); got != "" {
		t.Errorf("FeatureProblem(v2.0.0-rc1, DOG) = %q", got)
	}
	if got := ConfigHas("v1.0.1", "consensus.block_time_tolerance"); got {
		t.Error("v1.0 removed consensus.block_time_tolerance, ConfigHas says it has it")
	}
}

func TestSetGenesisParam(t *testing.T) {
	v1 := map[string]any{"consensus_params": map[string]any{"feature": map[string]any{"pbts_enable_height": "0"}}}
	if err := setGenesisParam(v1, GenesisPBTSKey, "5"); err != nil {
		t.Fatal(err)
	}
	if got := v1["consensus_params"].(map[string]any)["feature"].(map[string]any)["pbts_enable_height"]; got != "5" {
		t.Errorf("pbts_enable_height = %v, want 5", got)
	}
	v040 := map[string]any{"consensus_params": map[string]any{"abci": map[string]any{"vote_extensions_enable_height": "0"}}}
	if err := setGenesisParam(v040, GenesisPBTSKey, "5"); err == nil {
		t.Error("a genesis without feature.pbts_enable_height took it")
	}
}
