package main

import (
	"path/filepath"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/types/module"
	genutilcli "github.com/cosmos/cosmos-sdk/x/genutil/client/cli"
	"github.com/spf13/cobra"
)

// cometBFTDefaults, "true" unless the build sets it (go build -ldflags
// "-X main.cometBFTDefaults=false"), makes init write config.toml with
// CometBFT's own defaults, as cometlab's chain runs: the SDK's init
// writes its opinions instead (timeout_commit 5s, pprof on
// localhost:6060), as most SDK chains' daemons do — which a build with
// false keeps, to stand in for such a chain.
var cometBFTDefaults = "true"

// initCmd is the SDK's init (a node home as every SDK chain's init makes
// it: keys, config.toml, app.toml, the app's default genesis), then
// config.toml with CometBFT's defaults unless the build says otherwise.
func initCmd(basics module.BasicManager) *cobra.Command {
	cmd := genutilcli.InitCmd(basics, defaultHome())
	if cometBFTDefaults != "true" {
		return cmd
	}
	cmd.Long += "\n\nconfig.toml gets CometBFT's own defaults, not the SDK's (timeout_commit 5s, pprof on localhost:6060)."
	cmd.PostRunE = func(cmd *cobra.Command, args []string) error {
		home, err := cmd.Flags().GetString(flags.FlagHome)
		if err != nil {
			return err
		}
		cfg := cmtcfg.DefaultConfig()
		cfg.SetRoot(home)
		cfg.Moniker = args[0]
		cmtcfg.WriteConfigFile(filepath.Join(home, "config", "config.toml"), cfg)
		return nil
	}
	return cmd
}
