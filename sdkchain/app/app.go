// Package app is cometlab's own Cosmos SDK chain: the smallest app that
// starts and moves tokens (runtime, auth, bank, staking, genutil,
// consensus parameters and the tx config), wired by the SDK's dependency
// injection as the SDK's own test networks wire theirs.
package app

import (
	"fmt"

	runtimev1alpha1 "cosmossdk.io/api/cosmos/app/runtime/v1alpha1"
	appv1alpha1 "cosmossdk.io/api/cosmos/app/v1alpha1"
	authmodulev1 "cosmossdk.io/api/cosmos/auth/module/v1"
	bankmodulev1 "cosmossdk.io/api/cosmos/bank/module/v1"
	consensusmodulev1 "cosmossdk.io/api/cosmos/consensus/module/v1"
	genutilmodulev1 "cosmossdk.io/api/cosmos/genutil/module/v1"
	stakingmodulev1 "cosmossdk.io/api/cosmos/staking/module/v1"
	txconfigv1 "cosmossdk.io/api/cosmos/tx/config/v1"
	"cosmossdk.io/core/appconfig"
	"cosmossdk.io/depinject"
	dbm "github.com/cosmos/cosmos-db"

	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/runtime"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/module"

	_ "github.com/cosmos/cosmos-sdk/x/auth"           // the auth module registers itself
	_ "github.com/cosmos/cosmos-sdk/x/auth/tx/config" // the tx config and ante handler
	_ "github.com/cosmos/cosmos-sdk/x/bank"
	_ "github.com/cosmos/cosmos-sdk/x/consensus"
	_ "github.com/cosmos/cosmos-sdk/x/genutil"
	_ "github.com/cosmos/cosmos-sdk/x/staking"
)

// Name is the app's name (baseapp's, and the genesis's app_name).
const Name = "cometlab-sdk"

// Bech32Prefix is the accounts' address prefix of the chain this binary
// runs: "cosmos", or what its build sets (go build -ldflags
// "-X github.com/cometlab/cometlab/sdkchain/app.Bech32Prefix=PREFIX": a
// chain of another prefix, as a user's own chain may be).
var Bech32Prefix = "cosmos"

// SetAddressPrefix makes prefix the process's address prefix (the SDK's
// global config, by which addresses print): accounts PREFIX1…,
// validators PREFIXvaloper1…, consensus keys PREFIXvalcons1…. A change
// of prefix turns the SDK's cache of addresses' strings off: it would
// give an address as the old prefix wrote it.
func SetAddressPrefix(prefix string) {
	c := sdk.GetConfig()
	if c.GetBech32AccountAddrPrefix() != prefix {
		sdk.SetAddrCacheEnabled(false)
	}
	c.SetBech32PrefixForAccount(prefix, prefix+"pub")
	c.SetBech32PrefixForValidator(prefix+"valoper", prefix+"valoperpub")
	c.SetBech32PrefixForConsensusNode(prefix+"valcons", prefix+"valconspub")
}

// modules are the app's modules in genesis order (auth before bank,
// bank before staking, staking before genutil, which delivers the
// gentxs).
var modules = []string{"auth", "bank", "staking", "genutil", "consensus"}

// Config is the app's module configuration (ConfigFor its Bech32Prefix).
func Config() depinject.Config { return ConfigFor(Bech32Prefix) }

// ConfigFor is the app's module configuration with accounts of prefix.
func ConfigFor(prefix string) depinject.Config {
	runtimeCfg := &runtimev1alpha1.Module{
		AppName:       Name,
		PreBlockers:   []string{"auth"},
		BeginBlockers: []string{"staking", "auth", "bank", "genutil", "consensus"},
		EndBlockers:   []string{"staking", "auth", "bank", "genutil", "consensus"},
		InitGenesis:   modules,
		OverrideStoreKeys: []*runtimev1alpha1.StoreKeyConfig{
			{ModuleName: "auth", KvStoreKey: "acc"},
		},
	}
	cfgs := []*appv1alpha1.ModuleConfig{
		{Name: "runtime", Config: appconfig.WrapAny(runtimeCfg)},
		{Name: "auth", Config: appconfig.WrapAny(&authmodulev1.Module{
			Bech32Prefix: prefix,
			// unordered transactions (ADR-070): no sequence, a unique
			// timeout timestamp per sender instead
			EnableUnorderedTransactions: true,
			ModuleAccountPermissions:    moduleAccounts(),
		})},
		{Name: "bank", Config: appconfig.WrapAny(&bankmodulev1.Module{})},
		{Name: "staking", Config: appconfig.WrapAny(&stakingmodulev1.Module{})},
		{Name: "genutil", Config: appconfig.WrapAny(&genutilmodulev1.Module{})},
		{Name: "consensus", Config: appconfig.WrapAny(&consensusmodulev1.Module{})},
		{Name: "tx", Config: appconfig.WrapAny(&txconfigv1.Config{})},
	}
	return appconfig.Compose(&appv1alpha1.Config{Modules: cfgs})
}

// moduleAccount is a module account and its permissions.
type moduleAccount struct {
	name  string
	perms []string
}

// moduleAccounts are the module accounts of the app's modules: the fee
// collector, staking's pools, and the line's own (lineModuleAccounts).
func moduleAccounts() []*authmodulev1.ModuleAccountPermission {
	out := []*authmodulev1.ModuleAccountPermission{
		{Account: "fee_collector"},
		{Account: "bonded_tokens_pool", Permissions: []string{"burner", "staking"}},
		{Account: "not_bonded_tokens_pool", Permissions: []string{"burner", "staking"}},
	}
	for _, a := range lineModuleAccounts {
		out = append(out, &authmodulev1.ModuleAccountPermission{Account: a.name, Permissions: a.perms})
	}
	return out
}

// App is the chain's application.
type App struct {
	*runtime.App
}

// New builds the app on db; appOpts are the node's app.toml settings
// and flags (nil for none).
func New(logger Logger, db dbm.DB, appOpts servertypes.AppOptions, opts ...func(*baseapp.BaseApp)) (*App, error) {
	if appOpts == nil {
		appOpts = noOpts{}
	}
	SetAddressPrefix(Bech32Prefix)
	var builder *runtime.AppBuilder
	if err := depinject.Inject(depinject.Configs(Config(), depinject.Supply(logger, appOpts)), &builder); err != nil {
		return nil, fmt.Errorf("wire the app: %w", err)
	}
	a := &App{App: buildApp(builder, db, opts)}
	if err := a.Load(true); err != nil {
		return nil, fmt.Errorf("load the app: %w", err)
	}
	return a, nil
}

// Encoding is what a client of the chain needs to build, sign and read
// its transactions and genesis, without a store.
type Encoding struct {
	TxConfig          client.TxConfig
	Codec             codec.Codec
	Amino             *codec.LegacyAmino
	InterfaceRegistry codectypes.InterfaceRegistry
	// Basics are the modules' basics: default genesis and its
	// validation.
	Basics module.BasicManager
}

// NewEncoding wires the app's modules without a store and returns their
// codecs (NewEncodingFor its Bech32Prefix).
func NewEncoding() (Encoding, error) { return NewEncodingFor(Bech32Prefix) }

// NewEncodingFor is NewEncoding for a chain whose accounts have prefix:
// what a client signing for that chain needs (its messages, signers and
// genesis are the standard modules').
//
// The process's address prefix becomes prefix (SetAddressPrefix): the
// modules print their authorities by it and check them with the codec.
func NewEncodingFor(prefix string) (Encoding, error) {
	SetAddressPrefix(prefix)
	var e Encoding
	err := depinject.Inject(depinject.Configs(ConfigFor(prefix), depinject.Supply(NopLogger(), servertypes.AppOptions(noOpts{}))),
		&e.TxConfig, &e.Codec, &e.Amino, &e.InterfaceRegistry, &e.Basics)
	if err != nil {
		return Encoding{}, fmt.Errorf("wire the app's codecs: %w", err)
	}
	return e, nil
}

type noOpts struct{}

func (noOpts) Get(string) any { return nil }
