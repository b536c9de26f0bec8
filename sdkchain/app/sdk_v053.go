//go:build sdk053

package app

import (
	"cosmossdk.io/log"
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/baseapp"
	"github.com/cosmos/cosmos-sdk/runtime"
)

// SDK v0.53's side of sdk_v055.go.

// SDKLine is the SDK line this build is of.
const SDKLine = "v0.53"

// Logger is the SDK's logger of this line (cosmossdk.io/log).
type Logger = log.Logger

// NopLogger is a Logger that logs nothing.
func NopLogger() Logger { return log.NewNopLogger() }

// lineModuleAccounts: v0.53's staking has no key rotation.
var lineModuleAccounts []moduleAccount

// buildApp builds the wired app on db (no trace store).
func buildApp(b *runtime.AppBuilder, db dbm.DB, opts []func(*baseapp.BaseApp)) *runtime.App {
	return b.Build(db, nil, opts...)
}
