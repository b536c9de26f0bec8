// Package shape owns the load shapes — constant, ramp (linear or in steps),
// square wave, sine and replayed trace — as pure schedules: a function from
// a send's number to when it is due, and the number of sends, with no clock.
// The load generator spreads a [Schedule] over its connections; the manifest
// uses [Schedule.Count] as the expected number of transactions.
package shape
