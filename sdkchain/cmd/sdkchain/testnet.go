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
func testnetCmd(enc app.Encoding) *cobra.Command {
	var (
		seed, chainID, balance, stake string
		accounts                      int
		validators, nodes             []string
	)
	cmd := &cobra.Command{
		Use:   "testnet --validators NAME=HOME,… [--nodes HOME,…] --accounts N",
		Short: "Write an SDK testnet's genesis and app.toml into node homes",
		Long: `Write one genesis into every home: N funded load accounts and one operator
account and gentx per validator, all keys derived from --seed; the chain id,
genesis time and consensus parameters are kept from the first validator's
genesis.json (CometBFT's, as cometlab or init wrote it). Each home also gets
app.toml (API and gRPC off, telemetry on, no fee floor).`,
		Args:              cobra.NoArgs,
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(*cobra.Command, []string) error {
			spec := genesis.Spec{Seed: seed, Accounts: accounts}
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
			for _, h := range append(homes, nodes...) {
				if err := genesis.WriteHome(h, gen, genesis.AppConfig()); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&seed, "seed", "cometlab", "the seed every account key is derived from")
	f.StringVar(&chainID, "chain-id", "", "the chain id (default: the first validator's genesis's)")
	f.IntVar(&accounts, "accounts", 100, "funded load accounts")
	f.StringVar(&balance, "balance", "1000000000000", "each load account's balance (stake)")
	f.StringVar(&stake, "stake", "100000000", "each validator's self-delegation (stake; power = stake / 10^6)")
	f.StringSliceVar(&validators, "validators", nil, "validators as NAME=HOME, in order")
	f.StringSliceVar(&nodes, "nodes", nil, "homes of the nodes that are no validator")
	return cmd
}
