//go:build !sdk053

package main

import (
	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/server"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"

	"github.com/cometlab/cometlab/sdkchain/app"
)

// newApp is the SDK's AppCreator of the chain (SDK v0.55's signature;
// server_v053.go has v0.53's).
func newApp(logger app.Logger, db dbm.DB, opts servertypes.AppOptions) servertypes.Application {
	a, err := app.New(logger, db, opts, server.DefaultBaseappOptions(opts)...)
	if err != nil {
		panic(err) // the SDK's AppCreator has no error to return
	}
	return a
}

// exportApp is the SDK's export, which the chain does not support.
func exportApp(app.Logger, dbm.DB, int64, bool, []string, servertypes.AppOptions, []string) (servertypes.ExportedApp, error) {
	return servertypes.ExportedApp{}, errExport
}
