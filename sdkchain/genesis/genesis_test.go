package genesis_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/privval"
	cmttypes "github.com/cometbft/cometbft/types"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"

	"github.com/cometlab/cometlab/sdkchain/genesis"
)

// TestReadBase reads both genesis formats a home can hold and keeps what
// Build builds on: the chain id, time and consensus parameters.
func TestReadBase(t *testing.T) {
	dir := t.TempDir()
	when := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	params := cmttypes.DefaultConsensusParams()
	params.Block.MaxBytes = 123456
	cmt := cmttypes.GenesisDoc{ChainID: "cmt-chain", GenesisTime: when, InitialHeight: 1, ConsensusParams: params}
	cmtPath := filepath.Join(dir, "cometbft.json")
	if err := cmt.SaveAs(cmtPath); err != nil {
		t.Fatal(err)
	}
	sdk := genutiltypes.AppGenesis{ChainID: "sdk-chain", GenesisTime: when, InitialHeight: 1,
		Consensus: &genutiltypes.ConsensusGenesis{Params: params}}
	sdkPath := filepath.Join(dir, "sdk.json")
	if err := sdk.SaveAs(sdkPath); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, chain string }{{cmtPath, "cmt-chain"}, {sdkPath, "sdk-chain"}} {
		gen, err := genesis.ReadBase(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if gen.ChainID != tc.chain || !gen.GenesisTime.Equal(when) || gen.Consensus == nil ||
			gen.Consensus.Params.Block.MaxBytes != 123456 {
			t.Errorf("%s: chain %q time %v consensus %+v", tc.path, gen.ChainID, gen.GenesisTime, gen.Consensus)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"consensus_params": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := genesis.ReadBase(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad genesis: %v, want an error naming %s", err, bad)
	}
}

// TestConsensusKey takes an ed25519 key as CometBFT writes it and refuses
// what the chain cannot stake, naming the file.
func TestConsensusKey(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(cfg, "priv_validator_key.json")
	pv := privval.GenFilePV(keyFile, filepath.Join(dir, "state.json"))
	pv.Save()
	pub, err := genesis.ConsensusKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := pv.GetPubKey()
	if string(pub.Bytes()) != string(want.Bytes()) {
		t.Errorf("key %X, want %X", pub.Bytes(), want.Bytes())
	}
	for name, body := range map[string]string{
		"secp256k1": `{"pub_key": {"type": "tendermint/PubKeySecp256k1", "value": "A0JPcxcj3YDcnH1frvOuhhQCVvKWhgjXx6j4bSXNmGhV"}}`,
		"short":     `{"pub_key": {"type": "tendermint/PubKeyEd25519", "value": "AAEC"}}`,
		"not json":  `{`,
	} {
		if err := os.WriteFile(keyFile, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := genesis.ConsensusKey(dir); err == nil || !strings.Contains(err.Error(), keyFile) {
			t.Errorf("%s: %v, want an error naming %s", name, err, keyFile)
		}
	}
}

// TestSetTOML sets keys where a section has them, adds the ones it lacks
// at the section's top (or a new section), and keeps every other line.
func TestSetTOML(t *testing.T) {
	doc := "# top comment\npruning = \"default\"\n\n[api]\n# enable the API\nenable = true\naddress = \"tcp://0.0.0.0:1317\"\n\n[telemetry]\nenabled = false\n"
	got := genesis.SetTOML(doc, map[string]string{"pruning": `"nothing"`, "minimum-gas-prices": `"0stake"`, "api.enable": "false",
		"telemetry.service-name": `"sdkchain"`, "grpc.enable": "false"})
	want := "minimum-gas-prices = \"0stake\"\n# top comment\npruning = \"nothing\"\n\n[api]\n# enable the API\nenable = false\naddress = \"tcp://0.0.0.0:1317\"\n\n" +
		"[telemetry]\nservice-name = \"sdkchain\"\nenabled = false\n\n\n[grpc]\nenable = false"
	if got != want {
		t.Errorf("SetTOML:\n%s\nwant:\n%s", got, want)
	}
}

// FuzzSetTOML: whatever the document, every setting ends up set (its
// line present once as written), and setting them again changes nothing.
func FuzzSetTOML(f *testing.F) {
	f.Add("pruning = \"default\"\n[api]\nenable = true\n")
	f.Add("[telemetry]\n# enabled = true\nenabled=false\n[telemetry.sub]\nx = 1")
	f.Add("")
	settings := genesis.AppSettings("ulab", false)
	f.Fuzz(func(t *testing.T, doc string) {
		once := genesis.SetTOML(doc, settings)
		if twice := genesis.SetTOML(once, settings); twice != once {
			t.Fatalf("not idempotent:\n%q\n%q", once, twice)
		}
		for k, v := range settings {
			key := k[strings.LastIndex(k, ".")+1:]
			if !strings.Contains(once, key+" = "+v) {
				t.Errorf("%s = %s missing from %q", k, v, once)
			}
		}
	})
}
