// Package results owns the run directory: its layout, the record formats of
// its CSV files, atomic writes of its JSON files, and reading a run back.
//
// The run directory is the contract between cometlab's stages (and with
// other tools): the load generator and collectors append records while the
// run goes on, so whatever was gathered before a crash stays readable, and
// analysis and reports are recomputed from these files alone.
//
// All times in CSV files are Unix nanoseconds (UTC), which keeps them exact
// and cheap to write at 100k rows per second.
package results
