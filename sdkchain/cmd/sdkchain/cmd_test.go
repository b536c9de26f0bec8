package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/sdkchain/app"
	"github.com/cometlab/cometlab/sdkchain/genesis"
)

// TestInitTestnetPresign runs the commands in-process as a user would:
// init two homes (the SDK's init), write the testnet into them, presign
// for it; then checks what they wrote and that bad flags are refused by
// name.
func TestInitTestnetPresign(t *testing.T) {
	dir := t.TempDir()
	v0, v1 := filepath.Join(dir, "v0"), filepath.Join(dir, "v1")
	for _, h := range []string{v0, v1} {
		if err := execute(t, "init", filepath.Base(h), "--home", h, "--chain-id", "cmd-test"); err != nil {
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
		for _, want := range []string{`minimum-gas-prices = "0stake"`, "prometheus-retention-time = 600", "max-txs = -1", `service-name = "sdkchain"`} {
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
		{[]string{"init"}, "accepts 1 arg"},
		{[]string{"presign", "--chain-id", "x", "--bech32-prefix", "", "-o", out}, "--bech32-prefix"},
	} {
		if err := execute(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}

// TestTestnetOfAnotherChain writes the testnet of a chain of another
// prefix and denom over homes whose genesis and app.toml are that chain's
// own (init's, with a module and lines of its own added): the accounts,
// balances, bond denom and gentxs are the other chain's, and everything
// else in its genesis and app.toml stays.
func TestTestnetOfAnotherChain(t *testing.T) {
	defer app.SetAddressPrefix(app.Bech32Prefix)
	dir := t.TempDir()
	h := filepath.Join(dir, "v0")
	if err := execute(t, "init", "v0", "--home", h, "--chain-id", "lab-1", "--default-denom", "ulab"); err != nil {
		t.Fatal(err)
	}
	var gen map[string]any
	readJSON(t, genesis.GenesisFile(h), &gen)
	gen["app_state"].(map[string]any)["mint"] = map[string]any{"params": map[string]any{"mint_denom": "ulab"}}
	gen["app_state"].(map[string]any)["bank"].(map[string]any)["denom_metadata"] = []any{map[string]any{"base": "ulab"}}
	b, _ := json.Marshal(gen)
	if err := os.WriteFile(genesis.GenesisFile(h), b, 0o600); err != nil {
		t.Fatal(err)
	}
	toml, err := os.ReadFile(genesis.AppConfigFile(h))
	if err != nil {
		t.Fatal(err)
	}
	toml = append([]byte(genesis.SetTOML(string(toml), map[string]string{"mempool.max-txs": "5000"})), "\n[lab]\nown-key = \"kept\"\n"...)
	if err := os.WriteFile(genesis.AppConfigFile(h), toml, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := execute(t, "testnet", "--accounts", "3", "--validators", "v0="+h, "--bech32-prefix", "lab", "--denom", "ulab", "--keep-mempool"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		ChainID  string `json:"chain_id"`
		AppState struct {
			Mint json.RawMessage `json:"mint"`
			Auth struct {
				Accounts []struct {
					Address string `json:"address"`
				} `json:"accounts"`
			} `json:"auth"`
			Bank struct {
				Balances []struct {
					Address string `json:"address"`
					Coins   []struct {
						Denom string `json:"denom"`
					} `json:"coins"`
				} `json:"balances"`
				DenomMetadata []json.RawMessage `json:"denom_metadata"`
			} `json:"bank"`
			Staking struct {
				Params struct {
					BondDenom string `json:"bond_denom"`
				} `json:"params"`
			} `json:"staking"`
			Genutil struct {
				GenTxs []json.RawMessage `json:"gen_txs"`
			} `json:"genutil"`
		} `json:"app_state"`
	}
	readJSON(t, genesis.GenesisFile(h), &out)
	st := out.AppState
	if out.ChainID != "lab-1" || len(st.Auth.Accounts) != 4 || len(st.Bank.Balances) != 4 || len(st.Genutil.GenTxs) != 1 {
		t.Fatalf("chain %q, %d accounts, %d balances, %d gentxs; want lab-1, 4, 4, 1", out.ChainID, len(st.Auth.Accounts), len(st.Bank.Balances), len(st.Genutil.GenTxs))
	}
	for _, a := range st.Auth.Accounts {
		if !strings.HasPrefix(a.Address, "lab1") {
			t.Errorf("account %s: want the prefix lab", a.Address)
		}
	}
	for _, bal := range st.Bank.Balances {
		if len(bal.Coins) != 1 || bal.Coins[0].Denom != "ulab" {
			t.Errorf("balance of %s: %+v, want ulab", bal.Address, bal.Coins)
		}
	}
	if st.Staking.Params.BondDenom != "ulab" || len(st.Bank.DenomMetadata) != 1 || !strings.Contains(string(st.Mint), `"ulab"`) {
		t.Errorf("bond denom %q, %d denom metadata, mint %s: want ulab, the chain's own metadata and mint kept", st.Staking.Params.BondDenom, len(st.Bank.DenomMetadata), st.Mint)
	}
	if !strings.Contains(string(st.Genutil.GenTxs[0]), "labvaloper1") {
		t.Errorf("gentx %s: want a labvaloper operator", st.Genutil.GenTxs[0])
	}
	appToml, err := os.ReadFile(genesis.AppConfigFile(h))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`minimum-gas-prices = "0ulab"`, `own-key = "kept"`, `service-name = "sdkchain"`, "max-txs = 5000"} {
		if !strings.Contains(string(appToml), want) {
			t.Errorf("app.toml lacks %s", want)
		}
	}
	txs := filepath.Join(dir, "txs.b64")
	if err := execute(t, "presign", "--chain-id", "lab-1", "--accounts", "3", "--count", "3", "--bech32-prefix", "lab", "--denom", "ulab", "-o", txs); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
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
