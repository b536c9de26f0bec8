package genesis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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
// SDK's (consensus.params).
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
		GenesisTime: doc.GenesisTime, ChainID: doc.ChainID, InitialHeight: doc.InitialHeight, AppHash: doc.AppHash,
		Consensus: &genutiltypes.ConsensusGenesis{Validators: doc.Validators, Params: doc.ConsensusParams},
	}, nil
}

// AppConfig returns the app.toml cometlab runs the chain with: no fee
// floor (minimum-gas-prices 0), API, gRPC and gRPC-web off, telemetry on
// with its Prometheus sink (which registers with the process's default
// Prometheus registry, so the app's metrics are served on CometBFT's own
// instrumentation endpoint), and pruning of nothing (a run reads back
// every block).
func AppConfig() *srvconfig.Config {
	c := srvconfig.DefaultConfig()
	c.MinGasPrices = "0" + Denom
	c.Pruning = "nothing"
	c.API.Enable = false
	c.GRPC.Enable = false
	c.GRPCWeb.Enable = false
	c.Telemetry.Enabled = true
	c.Telemetry.PrometheusRetentionTime = 600
	c.Telemetry.ServiceName = "sdkchain"
	return c
}

// WriteHome writes gen and app.toml into home's config.
func WriteHome(home string, gen *genutiltypes.AppGenesis, cfg *srvconfig.Config) error {
	if err := gen.SaveAs(GenesisFile(home)); err != nil {
		return fmt.Errorf("write %s: %w", GenesisFile(home), err)
	}
	srvconfig.WriteConfigFile(AppConfigFile(home), cfg)
	return nil
}
