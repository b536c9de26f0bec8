//go:build sdk053

package main

import (
	"io"

	dbm "github.com/cosmos/cosmos-db"
	"github.com/cosmos/cosmos-sdk/server"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"

	"github.com/cometlab/cometlab/sdkchain/app"
)

// newApp: SDK v0.53's AppCreator (a trace writer, unused).
func newApp(logger app.Logger, db dbm.DB, _ io.Writer, opts servertypes.AppOptions) servertypes.Application {
	a, err := app.New(logger, db, opts, server.DefaultBaseappOptions(opts)...)
	if err != nil {
		panic(err) // the SDK's AppCreator has no error to return
	}
	return a
}

// exportApp: SDK v0.53's signature (a trace writer).
func exportApp(app.Logger, dbm.DB, io.Writer, int64, bool, []string, servertypes.AppOptions, []string) (servertypes.ExportedApp, error) {
	return servertypes.ExportedApp{}, errExport
}
