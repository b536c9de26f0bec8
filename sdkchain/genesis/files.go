package genesis

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	cmttypes "github.com/cometbft/cometbft/types"
	srvconfig "github.com/cosmos/cosmos-sdk/server/config"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"
)

// GenesisFile is home's genesis.json.
func GenesisFile(home string) string { return filepath.Join(home, "config", "genesis.json") }

// AppConfigFile is home's app.toml.
func AppConfigFile(home string) string { return filepath.Join(home, "config", "app.toml") }

// ReadBase reads a genesis to build on: CometBFT's (top-level
// consensus_params, as `cometbft init` and cometlab write it) or the
// SDK's (consensus.params, as a chain's `init` writes it); its app_state,
// if any, is kept.
func ReadBase(path string) (*genutiltypes.AppGenesis, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("base genesis: %w", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := keys["consensus_params"]; !ok {
		gen, err := genutiltypes.AppGenesisFromFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return gen, nil
	}
	var doc cmttypes.GenesisDoc
	if err := cmtjson.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &genutiltypes.AppGenesis{
		GenesisTime: doc.GenesisTime, ChainID: doc.ChainID, InitialHeight: doc.InitialHeight, AppHash: doc.AppHash, AppState: doc.AppState,
		Consensus: &genutiltypes.ConsensusGenesis{Validators: doc.Validators, Params: doc.ConsensusParams},
	}, nil
}

// AppSettings are the app.toml settings cometlab runs a chain with, by
// TOML key ("section.key", or "key" before any section) with their TOML
// values: no fee floor (minimum-gas-prices 0 of denom), API, gRPC and
// gRPC-web off, telemetry on with its Prometheus sink (which registers
// with the process's default Prometheus registry, so the app's metrics
// are served on CometBFT's own instrumentation endpoint) under the
// service name "sdkchain" (its metrics' prefix), pruning of nothing (a run
// reads back every block) and, unless keepMempool, the app-side mempool
// off (max-txs -1: CometBFT's mempool orders the transactions).
func AppSettings(denom string, keepMempool bool) map[string]string {
	s := map[string]string{
		"minimum-gas-prices": strconv.Quote("0" + denom), "pruning": `"nothing"`,
		"api.enable": "false", "grpc.enable": "false", "grpc-web.enable": "false",
		"telemetry.enabled": "true", "telemetry.prometheus-retention-time": "600", "telemetry.service-name": `"sdkchain"`,
	}
	if !keepMempool {
		s["mempool.max-txs"] = "-1"
	}
	return s
}

// WriteAppConfig sets settings (AppSettings) in the app.toml at path,
// keeping every other line of it (a chain's own app.toml, as its `init`
// wrote it); without one, it first writes the SDK's default.
func WriteAppConfig(path string, settings map[string]string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		srvconfig.WriteConfigFile(path, srvconfig.DefaultConfig())
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return fmt.Errorf("app.toml: %w", err)
	}
	return os.WriteFile(path, []byte(SetTOML(string(b), settings)), 0o600)
}

// SetTOML returns the TOML text doc with each key of settings
// ("section.key", or "key" before any section) set to its value: the
// key's line replaced where the section has it, else added at the
// section's top (the section added at the end when doc has none).
// Values must be one line (scalars); other lines stay as they are.
func SetTOML(doc string, settings map[string]string) string {
	lines := strings.Split(doc, "\n")
	done := map[string]bool{}
	section := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			section = strings.Trim(t, "[] ")
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok || strings.HasPrefix(t, "#") {
			continue
		}
		key := strings.Trim(strings.TrimSpace(k), `"`)
		if section != "" {
			key = section + "." + key
		}
		if v, set := settings[key]; set && !done[key] {
			lines[i] = strings.TrimSpace(k) + " = " + v
			done[key] = true
		}
	}
	var missing []string
	for k := range settings {
		if !done[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, key := range missing {
		sec, k := "", key
		if i := strings.LastIndex(key, "."); i >= 0 {
			sec, k = key[:i], key[i+1:]
		}
		line := k + " = " + settings[key]
		at := -1
		if sec == "" {
			at = 0
		}
		for i, l := range lines {
			if t := strings.TrimSpace(l); sec != "" && t == "["+sec+"]" {
				at = i + 1
				break
			}
		}
		if at < 0 {
			lines = append(lines, "", "["+sec+"]", line)
			continue
		}
		lines = append(lines[:at], append([]string{line}, lines[at:]...)...)
	}
	return strings.Join(lines, "\n")
}

// WriteGenesis writes gen into home's config.
func WriteGenesis(home string, gen *genutiltypes.AppGenesis) error {
	if err := gen.SaveAs(GenesisFile(home)); err != nil {
		return fmt.Errorf("write %s: %w", GenesisFile(home), err)
	}
	return nil
}
