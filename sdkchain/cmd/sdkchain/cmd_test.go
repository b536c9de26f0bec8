package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/sdkchain/genesis"
)

// TestInitTestnetPresign runs the commands in-process as a user would:
// init two homes, write the testnet into them, presign for it; then
// checks what they wrote and that bad flags are refused by name.
func TestInitTestnetPresign(t *testing.T) {
	dir := t.TempDir()
	v0, v1 := filepath.Join(dir, "v0"), filepath.Join(dir, "v1")
	for _, h := range []string{v0, v1} {
		if err := execute(t, "init", "--home", h); err != nil {
			t.Fatal(err)
		}
	}
	if err := execute(t, "testnet", "--chain-id", "cmd-test", "--accounts", "8", "--validators", "v0="+v0+",v1="+v1); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{v0, v1} {
		b, err := os.ReadFile(genesis.GenesisFile(h))
		if err != nil {
			t.Fatal(err)
		}
		var gen struct {
			ChainID  string `json:"chain_id"`
			AppState struct {
				Genutil struct {
					GenTxs []json.RawMessage `json:"gen_txs"`
				} `json:"genutil"`
				Auth struct {
					Accounts []json.RawMessage `json:"accounts"`
				} `json:"auth"`
			} `json:"app_state"`
		}
		if err := json.Unmarshal(b, &gen); err != nil {
			t.Fatal(err)
		}
		if gen.ChainID != "cmd-test" || len(gen.AppState.Genutil.GenTxs) != 2 || len(gen.AppState.Auth.Accounts) != 10 {
			t.Errorf("%s: chain %q, %d gentxs, %d accounts; want cmd-test, 2, 8+2", h, gen.ChainID,
				len(gen.AppState.Genutil.GenTxs), len(gen.AppState.Auth.Accounts))
		}
		app, err := os.ReadFile(genesis.AppConfigFile(h))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`minimum-gas-prices = "0stake"`, "prometheus-retention-time = 600"} {
			if !strings.Contains(string(app), want) {
				t.Errorf("%s: app.toml lacks %s", h, want)
			}
		}
	}
	out := filepath.Join(dir, "txs.b64")
	if err := execute(t, "presign", "--chain-id", "cmd-test", "--accounts", "8", "-c", "2", "-r", "10", "-T", "3s", "-o", out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 30 {
		t.Errorf("presign -r 10 -T 3s wrote %d lines, want 30", n)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"presign", "--chain-id", "x", "--accounts", "1", "-c", "2", "--count", "4", "-o", out}, "at least one per connection"},
		{[]string{"presign", "--count", "4", "-o", out}, "--chain-id"},
		{[]string{"testnet", "--validators", "v0"}, "NAME=HOME"},
		{[]string{"testnet", "--validators", "v0=" + v0, "--stake", "x"}, "--stake"},
		{[]string{"init"}, "--home"},
	} {
		if err := execute(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}

func execute(t *testing.T, args ...string) error {
	t.Helper()
	root, err := rootCmd()
	if err != nil {
		t.Fatal(err)
	}
	root.SetArgs(args)
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	return root.ExecuteContext(t.Context())
}
