// Package genesis writes an SDK testnet's genesis: the load's funded
// accounts and the validators' operator accounts (keys from package
// keys), and one gentx per validator staking its CometBFT consensus key
// (read from the node's config/priv_validator_key.json), over a CometBFT
// or SDK genesis whose chain id, time, consensus parameters and other
// app state it keeps — cometlab's chain's, or another SDK chain's of its
// own prefix and denom — and cometlab's settings into a home's app.toml.
package genesis

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"cosmossdk.io/math"
	"github.com/cosmos/cosmos-sdk/crypto/keys/ed25519"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	genutiltypes "github.com/cosmos/cosmos-sdk/x/genutil/types"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/cometlab/cometlab/sdkchain/app"
	"github.com/cometlab/cometlab/sdkchain/keys"
	"github.com/cometlab/cometlab/sdkchain/txsign"
)

// Denom is cometlab's chain's one token, staked, spent and paid as fees:
// the default of Spec.Denom.
const Denom = "stake"

// GentxGas is the gas limit of a validator's gentx.
const GentxGas = 1_000_000

// Spec is a testnet's genesis.
type Spec struct {
	Seed     string // derives every account's key (package keys)
	Accounts int    // funded load accounts, numbered 0…Accounts-1
	// Balance is each load account's balance in Denom.
	Balance math.Int
	// Validators names each validator and its CometBFT home (where its
	// consensus key is).
	Validators []Validator
	// Stake is each validator's self-delegation in Denom (its voting
	// power is Stake / 10⁶), unless the base genesis lists the
	// validator's consensus key: then its power there × 10⁶, so that the
	// chain's powers are those cometlab wrote.
	Stake math.Int
	// Denom is the token staked, funded and sent ("": Denom).
	Denom string
}

// denom is spec's token.
func (spec Spec) denom() string {
	if spec.Denom == "" {
		return Denom
	}
	return spec.Denom
}

// Validator is one validator of the genesis.
type Validator struct {
	Name string
	Home string
}

// AccountNumber is load account i's account number.
func AccountNumber(i int) uint64 { return uint64(i) }

// OperatorNumber is validator v's operator account number in a genesis of
// accounts load accounts.
func OperatorNumber(accounts, v int) uint64 { return uint64(accounts + v) }

// Build returns base (a CometBFT or SDK genesis, whose chain id, time,
// initial height and consensus parameters are kept) with the app state of
// spec and no validators: the chain takes its validator set from the
// gentxs at InitChain. base's app state, when it has one (the chain's
// own defaults, as its `init` wrote them), is kept but for what spec sets
// in it: the accounts (auth), their balances (bank), the bond denom
// (staking) and the gentxs (genutil); without one, the app's defaults.
func Build(enc app.Encoding, base *genutiltypes.AppGenesis, spec Spec) (*genutiltypes.AppGenesis, error) {
	if spec.Accounts < 0 || len(spec.Validators) == 0 {
		return nil, fmt.Errorf("genesis needs at least one validator and no negative account count")
	}
	denom := spec.denom()
	var (
		accs     authtypes.GenesisAccounts
		balances []banktypes.Balance
	)
	for i := range spec.Accounts {
		addr := keys.Address(keys.Account(spec.Seed, i))
		accs = append(accs, authtypes.NewBaseAccount(addr, nil, AccountNumber(i), 0))
		balances = append(balances, banktypes.Balance{Address: addr.String(), Coins: sdk.NewCoins(sdk.NewCoin(denom, spec.Balance))})
	}
	signer := txsign.Signer{TxConfig: enc.TxConfig, ChainID: base.ChainID, Gas: GentxGas}
	var gentxs []json.RawMessage
	for v, val := range spec.Validators {
		op := keys.Operator(spec.Seed, v)
		addr := keys.Address(op)
		accs = append(accs, authtypes.NewBaseAccount(addr, nil, OperatorNumber(spec.Accounts, v), 0))
		stake, err := stakeOf(base, val, spec.Stake)
		if err != nil {
			return nil, fmt.Errorf("validator %s: %w", val.Name, err)
		}
		balances = append(balances, banktypes.Balance{Address: addr.String(), Coins: sdk.NewCoins(sdk.NewCoin(denom, stake))})
		gentx, err := gentx(signer, val, op, sdk.NewCoin(denom, stake))
		if err != nil {
			return nil, fmt.Errorf("validator %s: %w", val.Name, err)
		}
		js, err := enc.TxConfig.TxJSONEncoder()(gentx)
		if err != nil {
			return nil, fmt.Errorf("validator %s: gentx: %w", val.Name, err)
		}
		gentxs = append(gentxs, js)
	}
	state, err := baseState(enc, base)
	if err != nil {
		return nil, err
	}
	ours := map[string]proto.Message{
		authtypes.ModuleName:    authtypes.NewGenesisState(authtypes.DefaultParams(), accs),
		banktypes.ModuleName:    &banktypes.GenesisState{Balances: banktypes.SanitizeGenesisBalances(balances)},
		genutiltypes.ModuleName: genutiltypes.NewGenesisState(gentxs),
	}
	// the fields of each module's state spec sets; the rest stays base's
	fields := map[string][]string{authtypes.ModuleName: {"accounts"}, banktypes.ModuleName: {"balances", "supply"}, genutiltypes.ModuleName: {"gen_txs"}}
	for _, mod := range []string{authtypes.ModuleName, banktypes.ModuleName, genutiltypes.ModuleName} {
		js, err := enc.Codec.MarshalJSON(ours[mod])
		if err != nil {
			return nil, fmt.Errorf("%s genesis: %w", mod, err)
		}
		if err := setFields(state, mod, js, fields[mod]); err != nil {
			return nil, err
		}
	}
	if err := setBondDenom(state, denom); err != nil {
		return nil, err
	}
	appState, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("app state: %w", err)
	}
	gen := *base
	if gen.AppName == "" {
		gen.AppName = app.Name
	}
	gen.AppState = appState
	if gen.Consensus != nil {
		c := *gen.Consensus
		c.Validators = nil
		gen.Consensus = &c
	}
	return &gen, nil
}

// baseState is base's app state by module, or the app's default genesis
// when base has none; a module base lacks of those Build sets gets the
// app's default.
func baseState(enc app.Encoding, base *genutiltypes.AppGenesis) (map[string]json.RawMessage, error) {
	def := enc.Basics.DefaultGenesis(enc.Codec)
	if len(bytes.TrimSpace(base.AppState)) == 0 || string(bytes.TrimSpace(base.AppState)) == "null" {
		return def, nil
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(base.AppState, &state); err != nil {
		return nil, fmt.Errorf("the base genesis's app_state: %w", err)
	}
	for _, mod := range []string{authtypes.ModuleName, banktypes.ModuleName, stakingtypes.ModuleName, genutiltypes.ModuleName} {
		if _, ok := state[mod]; !ok {
			state[mod] = def[mod]
		}
	}
	return state, nil
}

// setFields sets the fields of module mod's state in state to theirs in
// js (the module's whole state, as the app's codec writes it), the
// module's other fields as they were.
func setFields(state map[string]json.RawMessage, mod string, js json.RawMessage, fields []string) error {
	var have, from map[string]json.RawMessage
	if err := json.Unmarshal(state[mod], &have); err != nil || have == nil {
		return fmt.Errorf("the base genesis's app_state.%s is no object", mod)
	}
	if err := json.Unmarshal(js, &from); err != nil {
		return err
	}
	for _, k := range fields {
		v, ok := from[k]
		if !ok { // a field at its zero value: an empty list
			v = json.RawMessage("[]")
		}
		have[k] = v
	}
	b, err := json.Marshal(have)
	state[mod] = b
	return err
}

// setBondDenom sets staking's params.bond_denom in state to denom.
func setBondDenom(state map[string]json.RawMessage, denom string) error {
	var staking, params map[string]json.RawMessage
	if err := json.Unmarshal(state[stakingtypes.ModuleName], &staking); err != nil || staking == nil {
		return fmt.Errorf("the base genesis's app_state.staking is no object")
	}
	if err := json.Unmarshal(staking["params"], &params); err != nil || params == nil {
		return fmt.Errorf("the base genesis's app_state.staking.params is no object")
	}
	params["bond_denom"], _ = json.Marshal(denom)
	var err error
	if staking["params"], err = json.Marshal(params); err != nil {
		return err
	}
	state[stakingtypes.ModuleName], err = json.Marshal(staking)
	return err
}

// stakeOf is val's self-delegation: its power in base × 10⁶ when base
// lists its consensus key, else def.
func stakeOf(base *genutiltypes.AppGenesis, val Validator, def math.Int) (math.Int, error) {
	pub, err := ConsensusKey(val.Home)
	if err != nil {
		return math.Int{}, err
	}
	if base.Consensus != nil {
		for _, v := range base.Consensus.Validators {
			if v.PubKey != nil && bytes.Equal(v.PubKey.Bytes(), pub.Bytes()) && v.Power > 0 {
				return sdk.TokensFromConsensusPower(v.Power, sdk.DefaultPowerReduction), nil
			}
		}
	}
	return def, nil
}

// gentx is validator val's MsgCreateValidator, staking stake, signed by
// its operator key op as a genesis transaction (account number 0 and
// sequence 0, as the ante handler checks them at height 0).
func gentx(signer txsign.Signer, val Validator, op *secp256k1.PrivKey, stake sdk.Coin) (sdk.Tx, error) {
	pub, err := ConsensusKey(val.Home)
	if err != nil {
		return nil, err
	}
	commission := stakingtypes.NewCommissionRates(math.LegacyMustNewDecFromStr("0.1"),
		math.LegacyMustNewDecFromStr("0.2"), math.LegacyMustNewDecFromStr("0.01"))
	msg, err := stakingtypes.NewMsgCreateValidator(sdk.ValAddress(keys.Address(op)).String(), pub,
		stake, stakingtypes.NewDescription(val.Name, "", "", "", ""), commission, math.OneInt())
	if err != nil {
		return nil, fmt.Errorf("create-validator message: %w", err)
	}
	return signer.Sign(txsign.NewKey(op), 0, 0, msg)
}

// ConsensusKey reads the ed25519 public key of home's
// config/priv_validator_key.json (CometBFT's JSON).
func ConsensusKey(home string) (*ed25519.PubKey, error) {
	path := filepath.Join(home, "config", "priv_validator_key.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("consensus key: %w", err)
	}
	var pv struct {
		PubKey struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"pub_key"`
	}
	if err := json.Unmarshal(b, &pv); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if pv.PubKey.Type != "tendermint/PubKeyEd25519" {
		return nil, fmt.Errorf("%s: pub_key.type %q: the SDK chain takes ed25519 validator keys only", path, pv.PubKey.Type)
	}
	key, err := base64.StdEncoding.DecodeString(pv.PubKey.Value)
	if err != nil || len(key) != ed25519.PubKeySize {
		return nil, fmt.Errorf("%s: pub_key.value is no ed25519 public key", path)
	}
	return &ed25519.PubKey{Key: key}, nil
}
