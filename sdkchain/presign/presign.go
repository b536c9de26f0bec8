// Package presign signs a load's bank sends ahead of time, in the order
// cometlab's transactions file is sent: with c connections, line n·c + k
// is connection k's send n. The funded accounts are partitioned over the
// connections (account i belongs to connection i mod c), and each
// connection's sends go round the accounts it owns, each account's
// sequence counting up from 0, so no two connections ever sign for one
// account and, as long as a connection's sends reach its node in order,
// the ante handler sees every account's sequences without a gap.
package presign

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/cometlab/cometlab/sdkchain/genesis"
	"github.com/cometlab/cometlab/sdkchain/keys"
	"github.com/cometlab/cometlab/sdkchain/txsign"
)

// Plan is a load to sign.
type Plan struct {
	Seed        string // the genesis's seed (package keys)
	Accounts    int    // funded accounts to send from (0…Accounts-1)
	Connections int    // the load's connections
	Count       int    // transactions in all
	Amount      math.Int
	// Denom is the token sent ("": genesis.Denom).
	Denom string
	// Outputs, when 2 or more, makes each transaction a MsgMultiSend
	// from its account to that many accounts (the next ones), Amount
	// each; 0 or 1 a MsgSend to the next account.
	Outputs int
	// Unordered, when set, signs unordered transactions (SDK v0.53 on):
	// sequence 0 and line l's timeout Timeout + l ns, unique per
	// transaction, so they may reach the chain in any order, from any
	// connection; the chain refuses them after Timeout and any Timeout
	// more than its maximum (10 min) past the block time.
	Unordered bool
	Timeout   time.Time
	// Workers sign in parallel (0: one per CPU).
	Workers int
}

// Send is one planned transaction: from account From at sequence Seq,
// to account To.
type Send struct {
	From, To int
	Seq      uint64
}

// Validate reports what makes p unsignable.
func (p Plan) Validate() error {
	var errs []error
	if p.Connections < 1 {
		errs = append(errs, fmt.Errorf("connections %d: at least 1", p.Connections))
	}
	if p.Accounts < p.Connections {
		errs = append(errs, fmt.Errorf("accounts %d: at least one per connection (%d), so no two connections share an account", p.Accounts, p.Connections))
	}
	if p.Count < 0 {
		errs = append(errs, fmt.Errorf("count %d: negative", p.Count))
	}
	if p.Unordered && p.Timeout.IsZero() {
		errs = append(errs, fmt.Errorf("unordered: needs a timeout"))
	}
	if p.Outputs < 0 || p.Outputs >= max(p.Accounts, 2) {
		errs = append(errs, fmt.Errorf("outputs %d: from 0 to one fewer than the accounts (%d), so that no send pays its own account", p.Outputs, p.Accounts))
	}
	if p.Amount.IsNil() || !p.Amount.IsPositive() {
		errs = append(errs, fmt.Errorf("amount: must be positive"))
	}
	return errors.Join(errs...)
}

// At returns line l's send: connection k = l mod c, its send n = l div c,
// from the n mod m-th of the m accounts connection k owns (k, k+c, …), at
// that account's sequence n div m; to the next account.
func (p Plan) At(l int) Send {
	c := p.Connections
	k, n := l%c, l/c
	m := (p.Accounts - k + c - 1) / c // accounts i < Accounts with i mod c = k
	from := k + (n%m)*c
	return Send{From: from, To: (from + 1) % p.Accounts, Seq: uint64(n / m)}
}

// Sign signs the plan's transactions in order.
func Sign(s txsign.Signer, p Plan) ([][]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	keyOf := make([]txsign.Key, p.Accounts)
	for i := range p.Accounts {
		keyOf[i] = txsign.NewKey(keys.Account(p.Seed, i))
	}
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	txs := make([][]byte, p.Count)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for l := w; l < p.Count; l += workers {
				snd := p.At(l)
				msg := p.message(keyOf, snd)
				var tx sdk.Tx
				var err error
				if p.Unordered {
					tx, err = s.SignUnordered(keyOf[snd.From], genesis.AccountNumber(snd.From), p.Timeout.Add(time.Duration(l)), msg)
				} else {
					tx, err = s.Sign(keyOf[snd.From], genesis.AccountNumber(snd.From), snd.Seq, msg)
				}
				if err == nil {
					txs[l], err = s.Encode(tx)
				}
				if err != nil {
					errs[w] = fmt.Errorf("transaction %d (account %d, sequence %d): %w", l, snd.From, snd.Seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return txs, nil
}

// Message is snd's message as Sign signs it (see message).
func (p Plan) Message(snd Send) sdk.Msg {
	keyOf := make([]txsign.Key, p.Accounts)
	for i := range p.Accounts {
		keyOf[i] = txsign.NewKey(keys.Account(p.Seed, i))
	}
	return p.message(keyOf, snd)
}

// message is snd's message: a MsgSend of Amount to snd.To, or with
// Outputs ≥ 2 a MsgMultiSend of Amount to each of the Outputs accounts
// from snd.To on (one input: the SDK allows no more).
func (p Plan) message(keyOf []txsign.Key, snd Send) sdk.Msg {
	denom := cmp.Or(p.Denom, genesis.Denom)
	coins := sdk.NewCoins(sdk.NewCoin(denom, p.Amount))
	if p.Outputs < 2 {
		return banktypes.NewMsgSend(keyOf[snd.From].Address, keyOf[snd.To].Address, coins)
	}
	outs := make([]banktypes.Output, p.Outputs)
	for j := range outs {
		outs[j] = banktypes.NewOutput(keyOf[(snd.To+j)%p.Accounts].Address, coins)
	}
	total := sdk.NewCoins(sdk.NewCoin(denom, p.Amount.MulRaw(int64(p.Outputs))))
	return banktypes.NewMsgMultiSend(banktypes.NewInput(keyOf[snd.From].Address, total), outs)
}

// Write writes txs one a line in base64, as cometlab's --txs reads them.
func Write(w io.Writer, txs [][]byte) error {
	buf := make([]byte, 0, 512)
	for _, tx := range txs {
		buf = base64.StdEncoding.AppendEncode(buf[:0], tx)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("write transactions: %w", err)
		}
	}
	return nil
}
