//go:build !sdk053

package app

import (
	"cosmossdk.io/log/v2"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/runtime"
)

// What differs between the SDK lines the chain builds for: this file is
// SDK v0.55's (the default build, go.mod), sdk_v053.go v0.53's (the
// sdk053 tag, go.sdk053.mod).

// SDKLine is the SDK line this build is of.
const SDKLine = "v0.55"

// Logger is the SDK's logger of this line (cosmossdk.io/log/v2).
type Logger = log.Logger

// NopLogger is a Logger that logs nothing.
func NopLogger() Logger { return log.NewNopLogger() }

// lineModuleAccounts are the module accounts this line's modules need
// beyond fee_collector and staking's pools: staking burns the fee of a
// consensus key rotation from key_rotation_fee_pool.
var lineModuleAccounts = []moduleAccount{{"key_rotation_fee_pool", []string{"burner"}}}

// buildApp builds the wired app on db.
func buildApp(b *runtime.AppBuilder, db dbm.DB, opts []func(*baseapp.BaseApp)) *runtime.App {
	return b.Build(db, opts...)
}
