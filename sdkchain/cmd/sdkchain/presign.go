package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/sdkchain/app"
	"github.com/cometlab/cometlab/sdkchain/genesis"
	"github.com/cometlab/cometlab/sdkchain/presign"
	"github.com/cometlab/cometlab/sdkchain/txsign"
)

// presignCmd signs a load's bank sends into a transactions file for
// cometlab's --txs.
func presignCmd() *cobra.Command {
	var (
		p             presign.Plan
		chainID, out  string
		prefix        string
		amount, fee   string
		gas           uint64
		rate          float64
		duration, ttl time.Duration
	)
	cmd := &cobra.Command{
		Use:   "presign --chain-id ID --accounts N -c C (--count N | -r RATE -T DURATION) -o FILE",
		Short: "Sign a load's bank sends for cometlab's --txs",
		Long: `Sign bank MsgSends from the genesis's load accounts (keys derived from --seed)
into FILE, one base64 transaction a line, in the order cometlab's --txs sends
them with -c connections: line n·c+k is connection k's send n. Account i
belongs to connection i mod c alone, and each connection goes round its
accounts with each account's sequence counting up from 0, so the accounts
must be fresh (sequence 0) and need at least one per connection. With
--unordered the transactions carry no sequence but a unique timeout instead
(ADR-070): any order, any connection, valid for --ttl from signing.`,
		Args:              cobra.NoArgs,
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			if chainID == "" {
				return fmt.Errorf("--chain-id is required")
			}
			enc, err := encodingFor(prefix)
			if err != nil {
				return err
			}
			if p.Count == 0 && rate > 0 {
				p.Count = int(rate*duration.Seconds() + 0.5)
			}
			var ok bool
			if p.Amount, ok = math.NewIntFromString(amount); !ok {
				return fmt.Errorf("--amount %q: not an integer", amount)
			}
			fees, err := sdk.ParseCoinsNormalized(fee)
			if err != nil {
				return fmt.Errorf("--fee %q: %w", fee, err)
			}
			if p.Unordered {
				p.Timeout = time.Now().Add(ttl)
			}
			s := txsign.Signer{TxConfig: enc.TxConfig, ChainID: chainID, Gas: gas, Fee: fees}
			start := time.Now()
			txs, err := presign.Sign(s, p)
			if err != nil {
				return err
			}
			took := time.Since(start)
			if err := writeTxs(out, cmd.OutOrStdout(), txs); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "signed %d transactions in %v (%.0f tx/s)\n", len(txs), took.Round(time.Millisecond),
				float64(len(txs))/took.Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&chainID, "chain-id", "", "the chain's id")
	f.StringVar(&p.Seed, "seed", "cometlab", "the seed of the genesis's account keys")
	f.IntVar(&p.Accounts, "accounts", 100, "the genesis's funded load accounts to send from")
	f.IntVarP(&p.Connections, "connections", "c", 1, "the load's connections")
	f.IntVar(&p.Count, "count", 0, "transactions in all")
	f.Float64VarP(&rate, "rate", "r", 0, "transactions per second in all (with -T, for the count)")
	f.DurationVarP(&duration, "duration", "T", 0, "the load's duration (with -r)")
	f.StringVar(&amount, "amount", "1", "tokens (of --denom) sent by each transaction (to each of its outputs)")
	f.StringVar(&p.Denom, "denom", genesis.Denom, "the chain's token")
	f.StringVar(&prefix, "bech32-prefix", app.Bech32Prefix, "the chain's account address prefix")
	f.IntVar(&p.Outputs, "outputs", 0, "with 2 or more, each transaction a MsgMultiSend to that many accounts (default a MsgSend to one)")
	f.StringVar(&fee, "fee", "", "each transaction's fee, e.g. 10stake (default none)")
	f.Uint64Var(&gas, "gas", 100000, "each transaction's gas limit")
	f.BoolVar(&p.Unordered, "unordered", false, "sign unordered transactions (no sequence; each expires --ttl after signing)")
	f.DurationVar(&ttl, "ttl", 9*time.Minute, "with --unordered: how long the transactions stay valid (the chain takes at most 10m past its block time)")
	f.IntVar(&p.Workers, "workers", 0, "signing goroutines (default one per CPU)")
	f.StringVarP(&out, "out", "o", "-", "the transactions file (- for stdout)")
	return cmd
}

func writeTxs(path string, stdout io.Writer, txs [][]byte) error {
	if path == "-" {
		w := bufio.NewWriter(stdout)
		if err := presign.Write(w, txs); err != nil {
			return err
		}
		return w.Flush()
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("transactions file: %w", err)
	}
	w := bufio.NewWriter(f)
	if err := presign.Write(w, txs); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("transactions file: %w", err)
	}
	return f.Close()
}
