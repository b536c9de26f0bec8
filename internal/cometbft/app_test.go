package cometbft

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

func TestWriteAppConfig(t *testing.T) {
	for _, tc := range []struct {
		golden   string
		mode     string
		cfg      map[string]any
		nodeApp  map[string]any // the node's own settings, over cfg
		hostHome string         // the home on a deployed node's host
	}{
		{"app_e2e_validator.toml", ModeValidator, map[string]any{"vote_extension_size": int64(2048), "vote_extensions_enable_height": int64(1),
			"retain_blocks": int64(100)}, nil, ""},
		{"app_e2e_seed.toml", ModeSeed, nil, nil, ""},
		{"app_e2e_node_own.toml", ModeValidator, map[string]any{"retain_blocks": int64(100), "finalize_block_delay": "10ms"},
			map[string]any{"retain_blocks": int64(7), "prepare_proposal_delay": "1500ms"}, ""},
		// deployed: dir is under the home on the host, not the control host's
		{"app_e2e_host.toml", ModeValidator, map[string]any{"vote_extensions_enable_height": int64(1)}, nil, "/srv/cometlab/homes/n"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
				t.Fatal(err)
			}
			spec := Spec{ChainID: "cometlab-test", App: AppE2E, AppConfig: tc.cfg}
			if err := writeAppConfig(spec, NodeSpec{Name: "n", Mode: tc.mode, App: tc.nodeApp, HostHome: tc.hostHome}, Home{Dir: home}, nil); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(AppConfigFile(home))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(string(b), home, "HOME")
			resultstest.Golden(t, filepath.Join("testdata", tc.golden), []byte(got))
		})
	}
}

func TestSetGenesisAppHeights(t *testing.T) {
	// consensus_params as `cometbft init` writes them: v0.38–v0.40 keep
	// the vote-extension height under abci, v1.0 both heights under
	// feature, v0.34 neither.
	v038 := `{"consensus_params":{"abci":{"vote_extensions_enable_height":"0"}}}`
	v100 := `{"consensus_params":{"feature":{"vote_extensions_enable_height":"0","pbts_enable_height":"0"}}}`
	v034 := `{"consensus_params":{"block":{"max_bytes":"22020096"}}}`
	for _, tc := range []struct {
		name, genesis string
		settings      map[string]any
		want, err     string
	}{
		{"v0.38 VE", v038, map[string]any{"vote_extensions_enable_height": int64(1)}, `{"abci":{"vote_extensions_enable_height":"1"}}`, ""},
		{"v1.0 VE and PBTS", v100, map[string]any{"vote_extensions_enable_height": int64(5), "pbts_enable_height": int64(2)},
			`{"feature":{"pbts_enable_height":"2","vote_extensions_enable_height":"5"}}`, ""},
		{"other keys untouched", v038, map[string]any{"retain_blocks": int64(7)}, `{"abci":{"vote_extensions_enable_height":"0"}}`, ""},
		{"v0.38 has no PBTS", v038, map[string]any{"pbts_enable_height": int64(1)}, "", "no consensus parameter pbts_enable_height"},
		{"v0.34 has no VE", v034, map[string]any{"vote_extensions_enable_height": int64(1)}, "", "no consensus parameter vote_extensions_enable_height"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gen map[string]any
			if err := json.Unmarshal([]byte(tc.genesis), &gen); err != nil {
				t.Fatal(err)
			}
			err := setGenesisAppHeights(gen, tc.settings)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(gen["consensus_params"])
			if string(got) != tc.want {
				t.Errorf("consensus_params %s, want %s", got, tc.want)
			}
		})
	}
}

func TestE2EAppKeyProblem(t *testing.T) {
	for _, tc := range []struct{ version, key, want string }{
		{"v0.40.0", "vote_extension_size", ""},
		{"v1.0.1", "check_tx_delay", ""},
		{"v0.38.26", "vote_extension_size", `the e2e app of v0.38.26 has no key "vote_extension_size"`},
		{"v0.40.0", "check_tx_delay", `the e2e app of v0.40.0 has no key "check_tx_delay"`},
		{"v1.0.1", "dir", "set by cometlab"},
		{"v0.41.0", "retain_blocks", "not of a release line cometlab knows"},
	} {
		got := E2EAppKeyProblem(tc.version, tc.key)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.version, tc.key, got, tc.want)
		}
	}
	if HasVoteExtensions("v0.37.18") || !HasVoteExtensions("v0.38.26") || !HasVoteExtensions("v1.0.1") {
		t.Error("HasVoteExtensions: want false before v0.38, true from it")
	}
}
