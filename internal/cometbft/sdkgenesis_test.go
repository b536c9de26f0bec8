package cometbft

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSDKGenesisAsCometBFT: an SDK genesis (as a chain's init writes it)
// becomes CometBFT's format with its app state kept; a CometBFT genesis
// stays as it is; a genesis that does not read is an error naming it.
func TestSDKGenesisAsCometBFT(t *testing.T) {
	dir := t.TempDir()
	sdk := `{"app_name":"labd","app_version":"","genesis_time":"2026-12-04T05:00:00Z","chain_id":"lab-1","initial_height":1,"app_hash":null,
"app_state":{"bank":{"balances":[]},"mint":{"params":{"mint_denom":"ulab"}}},
"consensus":{"params":{"block":{"max_bytes":"22020096","max_gas":"-1"}}}}`
	cmt := `{"genesis_time":"2026-12-04T05:00:00Z","chain_id":"c","initial_height":"1","consensus_params":{"block":{"max_bytes":"1"}},"validators":[]}`
	for name, tc := range map[string]struct {
		in   string
		want map[string]string // key → its JSON
		err  string
	}{
		"sdk": {in: sdk, want: map[string]string{
			"chain_id": `"lab-1"`, "initial_height": `"1"`, "validators": `[]`,
			"consensus_params": `{"block":{"max_bytes":"22020096","max_gas":"-1"}}`,
			"app_state":        `{"bank":{"balances":[]},"mint":{"params":{"mint_denom":"ulab"}}}`,
			"consensus":        "", "app_name": "", "app_version": "",
		}},
		"cometbft": {in: cmt, want: map[string]string{"initial_height": `"1"`, "consensus_params": `{"block":{"max_bytes":"1"}}`}},
		"bad":      {in: `{"consensus":`, err: "bad.json"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".json")
			if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			err := sdkGenesisAsCometBFT(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v, want an error naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			var got map[string]json.RawMessage
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.want {
				v, ok := got[k]
				switch {
				case want == "" && ok:
					t.Errorf("%s: still there (%s)", k, v)
				case want != "" && compactJSON(t, v) != want:
					t.Errorf("%s = %s, want %s", k, v, want)
				}
			}
		})
	}
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestSDKBuildArgs: the default release builds from the chain's go.mod,
// v0.53.8 from its own with its tag; and each go.mod pins the release
// it is taken for (manifest.SDKVersions names both).
func TestSDKBuildArgs(t *testing.T) {
	for _, tc := range []struct{ version, modfile, args string }{
		{"v0.55.0", "go.mod", "build -o OUT ./cmd/sdkchain"},
		{"v0.53.8", "go.sdk053.mod", "build -modfile=go.sdk053.mod -tags=sdk053 -o OUT ./cmd/sdkchain"},
	} {
		args, modfile := sdkBuildArgs(tc.version, "OUT")
		if strings.Join(args, " ") != tc.args || modfile != tc.modfile {
			t.Errorf("%s: %v from %s, want %s from %s", tc.version, args, modfile, tc.args, tc.modfile)
		}
		got, err := requiredVersion(filepath.Join("..", "..", "sdkchain", modfile), "github.com/cosmos/cosmos-sdk")
		if err != nil || got != tc.version {
			t.Errorf("sdkchain/%s requires cosmos-sdk %s (%v), want %s", modfile, got, err, tc.version)
		}
	}
}
