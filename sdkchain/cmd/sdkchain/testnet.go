package main

import (
	"fmt"
	"strings"

	"cosmossdk.io/math"
	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/sdkchain/app"
	"github.com/cometlab/cometlab/sdkchain/genesis"
)

// testnetCmd writes the SDK genesis and app.toml into node homes whose
// keys and config.toml exist (written by `init` and cometlab).
func testnetCmd() *cobra.Command {
	var (
		seed, chainID, balance, stake string
		prefix, denom                 string
		accounts                      int
		keepMempool                   bool
		validators, nodes             []string
	)
	cmd := &cobra.Command{
		Use:   "testnet --validators NAME=HOME,… [--nodes HOME,…] --accounts N",
		Short: "Write an SDK testnet's genesis and app.toml into node homes",
		Long: `Write one genesis into every home: N funded load accounts and one operator
account and gentx per validator, all keys derived from --seed; the chain id,
genesis time, consensus parameters and the other modules' app state are kept
from the first validator's genesis.json (CometBFT's or the SDK's, as cometlab
or init wrote it). Each home's app.toml gets cometlab's settings (API and gRPC
off, telemetry on, no fee floor, pruning nothing, the app-side mempool off
unless --keep-mempool), its other lines kept. With --bech32-prefix and --denom
it writes the genesis of another SDK chain than this one: a user's own chain
whose auth, bank, staking and genutil are the SDK's.`,
		Args:              cobra.NoArgs,
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(*cobra.Command, []string) error {
			enc, err := encodingFor(prefix)
			if err != nil {
				return err
			}
			spec := genesis.Spec{Seed: seed, Accounts: accounts, Denom: denom}
			var ok bool
			if spec.Balance, ok = math.NewIntFromString(balance); !ok {
				return fmt.Errorf("--balance %q: not an integer", balance)
			}
			if spec.Stake, ok = math.NewIntFromString(stake); !ok {
				return fmt.Errorf("--stake %q: not an integer", stake)
			}
			var homes []string
			for _, v := range validators {
				name, home, found := strings.Cut(v, "=")
				if !found || name == "" || home == "" {
					return fmt.Errorf("--validators %q: want NAME=HOME", v)
				}
				spec.Validators = append(spec.Validators, genesis.Validator{Name: name, Home: home})
				homes = append(homes, home)
			}
			if len(homes) == 0 {
				return fmt.Errorf("--validators: at least one")
			}
			base, err := genesis.ReadBase(genesis.GenesisFile(homes[0]))
			if err != nil {
				return err
			}
			if chainID != "" {
				base.ChainID = chainID
			}
			gen, err := genesis.Build(enc, base, spec)
			if err != nil {
				return err
			}
			settings := genesis.AppSettings(denom, keepMempool)
			for _, h := range append(homes, nodes...) {
				if err := genesis.WriteGenesis(h, gen); err != nil {
					return err
				}
				if err := genesis.WriteAppConfig(genesis.AppConfigFile(h), settings); err != nil {
					return fmt.Errorf("%s: %w", h, err)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&seed, "seed", "cometlab", "the seed every account key is derived from")
	f.StringVar(&chainID, "chain-id", "", "the chain id (default: the first validator's genesis's)")
	f.IntVar(&accounts, "accounts", 100, "funded load accounts")
	f.StringVar(&balance, "balance", "1000000000000", "each load account's balance (of --denom)")
	f.StringVar(&stake, "stake", "100000000", "each validator's self-delegation (of --denom; power = stake / 10^6)")
	f.StringVar(&prefix, "bech32-prefix", app.Bech32Prefix, "the chain's account address prefix")
	f.StringVar(&denom, "denom", genesis.Denom, "the chain's token: staked, funded and sent")
	f.BoolVar(&keepMempool, "keep-mempool", false, "leave app.toml's [mempool] as it is (default: max-txs = -1, the app-side mempool off)")
	f.StringSliceVar(&validators, "validators", nil, "validators as NAME=HOME, in order")
	f.StringSliceVar(&nodes, "nodes", nil, "homes of the nodes that are no validator")
	return cmd
}
