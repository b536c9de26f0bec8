package presign_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"cosmossdk.io/math"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	txsigning "github.com/cosmos/cosmos-sdk/x/tx/signing"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/cometlab/cometlab/sdkchain/app"
	"github.com/cometlab/cometlab/sdkchain/genesis"
	"github.com/cometlab/cometlab/sdkchain/keys"
	"github.com/cometlab/cometlab/sdkchain/presign"
	"github.com/cometlab/cometlab/sdkchain/txsign"
)

// TestAtPartitions checks the plan against its contract line by line:
// line l is connection l mod c's, each account is used by one connection
// only, and each account's sequences count 0, 1, 2, … in the order its
// connection sends them.
func TestAtPartitions(t *testing.T) {
	for _, tc := range []struct{ accounts, conns, count int }{
		{1, 1, 10}, {4, 4, 40}, {10, 3, 100}, {7, 2, 55}, {100, 8, 1000},
	} {
		p := presign.Plan{Accounts: tc.accounts, Connections: tc.conns, Count: tc.count, Amount: math.OneInt()}
		owner := map[int]int{}
		next := map[int]uint64{}
		for l := range tc.count {
			s := p.At(l)
			k := l % tc.conns
			if s.From < 0 || s.From >= tc.accounts || s.To < 0 || s.To >= tc.accounts {
				t.Fatalf("%+v line %d: %+v out of range", tc, l, s)
			}
			if o, ok := owner[s.From]; ok && o != k {
				t.Fatalf("%+v line %d: account %d used by connections %d and %d", tc, l, s.From, o, k)
			}
			owner[s.From] = k
			if s.Seq != next[s.From] {
				t.Fatalf("%+v line %d: account %d sequence %d, want %d", tc, l, s.From, s.Seq, next[s.From])
			}
			next[s.From]++
		}
		if tc.count >= tc.accounts && len(owner) != tc.accounts {
			t.Errorf("%+v: %d accounts used, want all %d", tc, len(owner), tc.accounts)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    presign.Plan
		ok   bool
	}{
		{"ok", presign.Plan{Accounts: 4, Connections: 4, Count: 1, Amount: math.OneInt()}, true},
		{"fewer accounts than connections", presign.Plan{Accounts: 3, Connections: 4, Count: 1, Amount: math.OneInt()}, false},
		{"no connection", presign.Plan{Accounts: 3, Connections: 0, Count: 1, Amount: math.OneInt()}, false},
		{"no amount", presign.Plan{Accounts: 3, Connections: 1, Count: 1}, false},
		{"zero amount", presign.Plan{Accounts: 3, Connections: 1, Count: 1, Amount: math.ZeroInt()}, false},
		{"multi-send to the others", presign.Plan{Accounts: 3, Connections: 1, Count: 1, Amount: math.OneInt(), Outputs: 2}, true},
		{"multi-send back to itself", presign.Plan{Accounts: 3, Connections: 1, Count: 1, Amount: math.OneInt(), Outputs: 3}, false},
		{"negative outputs", presign.Plan{Accounts: 3, Connections: 1, Count: 1, Amount: math.OneInt(), Outputs: -1}, false},
	} {
		if err := tc.p.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", tc.name, err)
		}
	}
}

// TestSignRoundTrip decodes signed transactions and verifies each
// signature against the sending account's key, account number, sequence
// and chain id, as the ante handler does; a wrong chain id or account
// number must fail verification.
func TestSignRoundTrip(t *testing.T) {
	enc, err := app.NewEncoding()
	if err != nil {
		t.Fatal(err)
	}
	s := txsign.Signer{TxConfig: enc.TxConfig, ChainID: "rt-chain", Gas: 100000}
	p := presign.Plan{Seed: "rt", Accounts: 6, Connections: 3, Count: 12, Amount: math.NewInt(7)}
	txs, err := presign.Sign(s, p)
	if err != nil {
		t.Fatal(err)
	}
	for l, bz := range txs {
		want := p.At(l)
		tx, err := enc.TxConfig.TxDecoder()(bz)
		if err != nil {
			t.Fatalf("line %d: decode: %v", l, err)
		}
		msgs := tx.GetMsgs()
		send, ok := msgs[0].(*banktypes.MsgSend)
		if len(msgs) != 1 || !ok {
			t.Fatalf("line %d: messages %v, want one MsgSend", l, msgs)
		}
		from := keys.Account("rt", want.From)
		if send.FromAddress != keys.Address(from).String() || send.ToAddress != keys.Address(keys.Account("rt", want.To)).String() ||
			!send.Amount.Equal(sdk.NewCoins(sdk.NewCoin(genesis.Denom, math.NewInt(7)))) {
			t.Fatalf("line %d: %v, want %+v", l, send, want)
		}
		sigs, err := tx.(authsigning.SigVerifiableTx).GetSignaturesV2()
		if err != nil || len(sigs) != 1 {
			t.Fatalf("line %d: signatures %v: %v", l, sigs, err)
		}
		if sigs[0].Sequence != want.Seq || !sigs[0].PubKey.Equals(from.PubKey()) {
			t.Fatalf("line %d: signer %v sequence %d, want account %d sequence %d", l, sigs[0].PubKey, sigs[0].Sequence, want.From, want.Seq)
		}
		// SIGN_MODE_DIRECT signs the chain id and account number given
		// here and the auth info inside the transaction, which carries the
		// sequence (checked above; the ante handler checks it against the
		// account's).
		verify := func(chainID string, accNum uint64) error {
			pk, _ := codectypes.NewAnyWithValue(from.PubKey())
			sd := txsigning.SignerData{Address: send.FromAddress, ChainID: chainID, AccountNumber: accNum,
				Sequence: want.Seq, PubKey: &anypb.Any{TypeUrl: pk.TypeUrl, Value: pk.Value}}
			return authsigning.VerifySignature(context.Background(), from.PubKey(), sd, sigs[0].Data,
				enc.TxConfig.SignModeHandler(), tx.(authsigning.V2AdaptableTx).GetSigningTxData())
		}
		num := genesis.AccountNumber(want.From)
		if err := verify("rt-chain", num); err != nil {
			t.Fatalf("line %d: %v", l, err)
		}
		if verify("other-chain", num) == nil {
			t.Fatalf("line %d: verifies under another chain id", l)
		}
		if verify("rt-chain", num+1) == nil {
			t.Fatalf("line %d: verifies as another account number", l)
		}
	}
}

// BenchmarkSign measures the signing ceiling: one MsgSend signed and
// encoded per op, on one goroutine. Besides the wall-clock ns/op it
// reports the process's CPU time per op (getrusage, user + system) and
// its inverse, tx per CPU-second: on a shared machine the ceiling of one
// core is the latter.
func BenchmarkSign(b *testing.B) {
	enc, err := app.NewEncoding()
	if err != nil {
		b.Fatal(err)
	}
	s := txsign.Signer{TxConfig: enc.TxConfig, ChainID: "bench", Gas: 100000}
	key := txsign.NewKey(keys.Account("bench", 0))
	to := keys.Address(keys.Account("bench", 1))
	coins := sdk.NewCoins(sdk.NewCoin(genesis.Denom, math.OneInt()))
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for i := 0; b.Loop(); i++ {
		tx, err := s.Sign(key, 0, uint64(i), banktypes.NewMsgSend(key.Address, to, coins))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Encode(tx); err != nil {
			b.Fatal(err)
		}
	}
	cpu := (cpuTime(b) - cpu0).Seconds()
	b.ReportMetric(cpu*1e9/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/cpu, "tx/cpu-s")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMultiSend: with Outputs 3 each line is one MsgMultiSend from the
// line's account, one input of 3 × Amount, to the 3 accounts after it
// (round the ring), Amount each.
func TestMultiSend(t *testing.T) {
	enc, err := app.NewEncoding()
	if err != nil {
		t.Fatal(err)
	}
	s := txsign.Signer{TxConfig: enc.TxConfig, ChainID: "ms-chain", Gas: 200000}
	p := presign.Plan{Seed: "ms", Accounts: 5, Connections: 2, Count: 6, Amount: math.NewInt(4), Outputs: 3}
	txs, err := presign.Sign(s, p)
	if err != nil {
		t.Fatal(err)
	}
	addr := func(i int) string { return keys.Address(keys.Account("ms", i%5)).String() }
	for l, bz := range txs {
		want := p.At(l)
		tx, err := enc.TxConfig.TxDecoder()(bz)
		if err != nil {
			t.Fatalf("line %d: decode: %v", l, err)
		}
		msgs := tx.GetMsgs()
		ms, ok := msgs[0].(*banktypes.MsgMultiSend)
		if len(msgs) != 1 || !ok || len(ms.Inputs) != 1 || len(ms.Outputs) != 3 {
			t.Fatalf("line %d: messages %v, want one MsgMultiSend of 1 input, 3 outputs", l, msgs)
		}
		if ms.Inputs[0].Address != addr(want.From) || !ms.Inputs[0].Coins.Equal(sdk.NewCoins(sdk.NewCoin(genesis.Denom, math.NewInt(12)))) {
			t.Errorf("line %d: input %v, want 12 from account %d", l, ms.Inputs[0], want.From)
		}
		for j, o := range ms.Outputs {
			if o.Address != addr(want.To+j) || !o.Coins.Equal(sdk.NewCoins(sdk.NewCoin(genesis.Denom, math.NewInt(4)))) {
				t.Errorf("line %d output %d: %v, want 4 to account %d", l, j, o, (want.To+j)%5)
			}
		}
	}
}
