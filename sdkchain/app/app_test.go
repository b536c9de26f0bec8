package app_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"cosmossdk.io/math"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/privval"
	cmttypes "github.com/cometbft/cometbft/types"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/baseapp"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"

	"github.com/cometlab/cometlab/sdkchain/app"
	"github.com/cometlab/cometlab/sdkchain/genesis"
	"github.com/cometlab/cometlab/sdkchain/keys"
	"github.com/cometlab/cometlab/sdkchain/presign"
	"github.com/cometlab/cometlab/sdkchain/txsign"
)

const chainID = "app-test"

// TestChainRoundTrip runs the app in-process from a genesis Build wrote:
// InitChain must stake both validators' consensus keys (at the base
// genesis's power where it lists the key, else at Stake), a block of
// presigned sends must all pass the ante handler and move the funds the
// plan says, and a send at a sequence the account is not at must fail
// with the SDK's wrong-sequence code.
func TestChainRoundTrip(t *testing.T) {
	enc, err := app.NewEncoding()
	if err != nil {
		t.Fatal(err)
	}
	var (
		vals    []genesis.Validator
		baseSet []cmttypes.GenesisValidator
	)
	for _, name := range []string{"v0", "v1"} {
		home := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(filepath.Join(home, "config"), 0o700); err != nil {
			t.Fatal(err)
		}
		pv := privval.GenFilePV(filepath.Join(home, "config", "priv_validator_key.json"), filepath.Join(home, "pvs.json"))
		pv.Save()
		vals = append(vals, genesis.Validator{Name: name, Home: home})
		if name == "v1" { // v1 is in the base genesis with power 7, v0 not
			pub, _ := pv.GetPubKey()
			baseSet = append(baseSet, cmttypes.GenesisValidator{Address: pub.Address(), PubKey: pub, Power: 7})
		}
	}
	now := time.Now().UTC()
	base := &genutiltypes.AppGenesis{ChainID: chainID, GenesisTime: now, InitialHeight: 1,
		Consensus: &genutiltypes.ConsensusGenesis{Params: cmttypes.DefaultConsensusParams(), Validators: baseSet}}
	const balance = 1_000_000_000
	gen, err := genesis.Build(enc, base, genesis.Spec{Seed: "t", Accounts: 4, Balance: math.NewInt(balance),
		Validators: vals, Stake: math.NewInt(100_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.NopLogger(), dbm.NewMemDB(), nil, baseapp.SetChainID(chainID))
	if err != nil {
		t.Fatal(err)
	}
	cp := gen.Consensus.Params.ToProto()
	ic, err := a.InitChain(&abci.RequestInitChain{ChainId: chainID, Time: now, ConsensusParams: &cp,
		AppStateBytes: gen.AppState, InitialHeight: 1})
	if err != nil {
		t.Fatal(err)
	}
	if gen.Consensus.Validators != nil {
		t.Fatalf("genesis validators %v, want none (the gentxs make them)", gen.Consensus.Validators)
	}
	powers := map[int64]int{}
	for _, v := range ic.Validators {
		powers[v.Power]++
	}
	if len(ic.Validators) != 2 || powers[100] != 1 || powers[7] != 1 {
		t.Fatalf("InitChain validators %v, want power 100 (Stake) and 7 (the base genesis's)", ic.Validators)
	}

	s := txsign.Signer{TxConfig: enc.TxConfig, ChainID: chainID, Gas: 100_000}
	// 2 connections over 4 accounts: sends from 0, 1, 2, 3, 0, 1, each to
	// the next account, 5 stake each.
	p := presign.Plan{Seed: "t", Accounts: 4, Connections: 2, Count: 6, Amount: math.NewInt(5)}
	txs, err := presign.Sign(s, p)
	if err != nil {
		t.Fatal(err)
	}
	k3 := txsign.NewKey(keys.Account("t", 3))
	bad, err := s.Sign(k3, genesis.AccountNumber(3), 9, banktypes.NewMsgSend(k3.Address, k3.Address,
		sdk.NewCoins(sdk.NewCoin(genesis.Denom, math.OneInt()))))
	if err != nil {
		t.Fatal(err)
	}
	badBz, err := s.Encode(bad)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := a.FinalizeBlock(&abci.RequestFinalizeBlock{Height: 1, Time: now.Add(time.Second), Txs: append(txs, badBz)})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range fb.TxResults[:len(txs)] {
		if r.Code != 0 {
			t.Fatalf("tx %d (%+v): code %d %s: %s", i, p.At(i), r.Code, r.Codespace, r.Log)
		}
	}
	if r := fb.TxResults[len(txs)]; r.Code != 32 || r.Codespace != "sdk" {
		t.Fatalf("send at sequence 9: code %d %q (%s), want 32 sdk (wrong sequence)", r.Code, r.Codespace, r.Log)
	}
	if _, err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	unordered(t, a, s, now.Add(2*time.Second))
	multiSend(t, a, s, now.Add(4*time.Second))
	// Account 0 sent 2×5 and got 5 from account 3; account 2 sent 5 and
	// got 2×5 from account 1; fees are none.
	// Then account 1 sent 3×1 unordered to itself, and account 3 7 to
	// each of accounts 0 and 1 in one MsgMultiSend.
	for acc, want := range map[int]int64{0: balance - 5 + 7, 1: balance + 7, 2: balance + 5, 3: balance - 14} {
		if got := balanceOf(t, a, keys.Address(keys.Account("t", acc))); got != want {
			t.Errorf("account %d: balance %d, want %d", acc, got, want)
		}
	}
}

func balanceOf(t *testing.T, a *app.App, addr sdk.AccAddress) int64 {
	t.Helper()
	req := banktypes.QueryBalanceRequest{Address: addr.String(), Denom: genesis.Denom}
	bz, err := req.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Query(t.Context(), &abci.RequestQuery{Path: "/cosmos.bank.v1beta1.Query/Balance", Data: bz})
	if err != nil || res.Code != 0 {
		t.Fatalf("balance query: %v %s", err, res.GetLog())
	}
	var out banktypes.QueryBalanceResponse
	if err := out.Unmarshal(res.Value); err != nil {
		t.Fatal(err)
	}
	return out.Balance.Amount.Int64()
}

// unordered commits a block of three unordered sends from one account,
// in the reverse order of their timeouts (no sequence to keep), then
// the first of them again in the next block, which the chain must refuse
// as a used nonce.
func unordered(t *testing.T, a *app.App, s txsign.Signer, at time.Time) {
	t.Helper()
	k := txsign.NewKey(keys.Account("t", 1))
	var txs [][]byte
	for i := 3; i > 0; i-- {
		tx, err := s.SignUnordered(k, genesis.AccountNumber(1), at.Add(5*time.Minute+time.Duration(i)),
			banktypes.NewMsgSend(k.Address, k.Address, sdk.NewCoins(sdk.NewCoin(genesis.Denom, math.OneInt()))))
		if err != nil {
			t.Fatal(err)
		}
		bz, err := s.Encode(tx)
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, bz)
	}
	for h, block := range [][][]byte{txs, txs[:1]} {
		fb, err := a.FinalizeBlock(&abci.RequestFinalizeBlock{Height: int64(2 + h), Time: at.Add(time.Duration(h) * time.Second), Txs: block})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range fb.TxResults {
			if ok := h == 0; (r.Code == 0) != ok {
				t.Fatalf("block %d, unordered tx %d: code %d %s: %s", 2+h, i, r.Code, r.Codespace, r.Log)
			}
		}
		if _, err := a.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// multiSend commits a block of one MsgMultiSend as presign signs it
// (Plan.Outputs 2): account 3, at its sequence 1, pays 7 to each of
// accounts 0 and 1 (the next ones after it).
func multiSend(t *testing.T, a *app.App, s txsign.Signer, at time.Time) {
	t.Helper()
	p := presign.Plan{Seed: "t", Accounts: 4, Connections: 1, Count: 1, Amount: math.NewInt(7), Outputs: 2}
	tx, err := s.Sign(txsign.NewKey(keys.Account("t", 3)), genesis.AccountNumber(3), 1, p.Message(presign.Send{From: 3, To: 0}))
	if err != nil {
		t.Fatal(err)
	}
	bz, err := s.Encode(tx)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := a.FinalizeBlock(&abci.RequestFinalizeBlock{Height: 4, Time: at, Txs: [][]byte{bz}})
	if err != nil {
		t.Fatal(err)
	}
	if r := fb.TxResults[0]; r.Code != 0 {
		t.Fatalf("multi-send: code %d %s: %s", r.Code, r.Codespace, r.Log)
	}
	if _, err := a.Commit(); err != nil {
		t.Fatal(err)
	}
}
