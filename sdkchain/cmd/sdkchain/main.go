// Command sdkchain is cometlab's own Cosmos SDK chain (package app) and
// its tools: `init` (the SDK's) makes a node home, `testnet` writes a
// testnet's SDK genesis and app.toml settings into homes, `presign` signs a
// load's bank sends, and `start` (the SDK's) runs the node with CometBFT
// in-process.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/server"
	svrcmd "github.com/cosmos/cosmos-sdk/server/cmd"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/cometlab/cometlab/sdkchain/app"
)

func main() {
	// Plain log lines without colour codes, as CometBFT's own plain format
	// has none (cometlab scans the nodes' logs for error lines); the SDK's
	// --log_no_color, or SDKCHAIN_LOG_NO_COLOR=false, overrides it.
	if _, set := os.LookupEnv("SDKCHAIN_LOG_NO_COLOR"); !set {
		os.Setenv("SDKCHAIN_LOG_NO_COLOR", "true")
	}
	root, err := rootCmd()
	if err == nil {
		err = svrcmd.Execute(root, "SDKCHAIN", defaultHome())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdkchain:", err)
		os.Exit(1)
	}
}

func defaultHome() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ".sdkchain"
	}
	return filepath.Join(home, ".sdkchain")
}

func rootCmd() (*cobra.Command, error) {
	enc, err := app.NewEncoding()
	if err != nil {
		return nil, err
	}
	clientCtx := client.Context{}.WithCodec(enc.Codec).WithInterfaceRegistry(enc.InterfaceRegistry).
		WithTxConfig(enc.TxConfig).WithLegacyAmino(enc.Amino).WithAccountRetriever(authtypes.AccountRetriever{}).
		WithHomeDir(defaultHome()).WithViper("SDKCHAIN")
	root := &cobra.Command{
		Use:           "sdkchain",
		Short:         "cometlab's own Cosmos SDK chain",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			ctx, err := client.ReadPersistentCommandFlags(clientCtx.WithCmdContext(cmd.Context()), cmd.Flags())
			if err != nil {
				return err
			}
			if err := client.SetCmdClientContextHandler(ctx, cmd); err != nil {
				return err
			}
			// The CometBFT config to read config.toml into (the SDK's
			// defaults only apply to a home without one).
			return server.InterceptConfigsPreRunHandler(cmd, "", nil, cmtcfg.DefaultConfig())
		},
	}
	server.AddCommands(root, defaultHome(), newApp, exportApp, func(*cobra.Command) {})
	// init is the SDK's (a home as every SDK chain's init makes it, the
	// app's default genesis in it); testnet writes cometlab's testnet
	// over it.
	root.AddCommand(initCmd(enc.Basics), testnetCmd(), presignCmd())
	return root, nil
}

// encodingFor is the app's codecs for a chain of account prefix prefix
// (this chain's, or another's that testnet and presign write for); the
// process's addresses print with it from then on.
func encodingFor(prefix string) (app.Encoding, error) {
	if prefix == "" {
		return app.Encoding{}, errors.New("--bech32-prefix must not be empty")
	}
	return app.NewEncodingFor(prefix)
}

var errExport = errors.New("export is not supported by cometlab's SDK chain")
