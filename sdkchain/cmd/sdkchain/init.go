package main

import (
	"fmt"
	"os"
	"path/filepath"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/types"
	cmttime "github.com/cometbft/cometbft/types/time"
	"github.com/spf13/cobra"
)

// initCmd makes a node home as `cometbft init` does (config.toml with
// the release's defaults, node and validator keys, a genesis, though
// with no validator), so that cometlab generates an SDK chain's homes the
// way it generates CometBFT's; `testnet` then writes the SDK genesis
// over it.
func initCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Make a node home as `cometbft init` does",
		Args:  cobra.NoArgs,
		// No SDK pre-run: it would write an SDK default config first.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			if home == "" {
				return fmt.Errorf("--home is required")
			}
			return initHome(home)
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "the node's home")
	return cmd
}

func initHome(home string) error {
	cfg := cmtcfg.DefaultConfig()
	cfg.SetRoot(home)
	for _, d := range []string{"config", "data"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "config", "config.toml")); err != nil {
		cmtcfg.WriteConfigFile(filepath.Join(home, "config", "config.toml"), cfg)
	}
	pv := privval.LoadOrGenFilePV(cfg.PrivValidatorKeyFile(), cfg.PrivValidatorStateFile())
	if _, err := p2p.LoadOrGenNodeKey(cfg.NodeKeyFile()); err != nil {
		return fmt.Errorf("init: node key: %w", err)
	}
	if _, err := pv.GetPubKey(); err != nil {
		return fmt.Errorf("init: validator key: %w", err)
	}
	// No validators: the SDK chain takes them from its gentxs, and
	// `testnet` stakes a validator the genesis lists at its power there.
	gen := types.GenesisDoc{ChainID: "sdkchain", GenesisTime: cmttime.Now(), ConsensusParams: types.DefaultConsensusParams()}
	if err := gen.SaveAs(cfg.GenesisFile()); err != nil {
		return fmt.Errorf("init: genesis: %w", err)
	}
	return nil
}
