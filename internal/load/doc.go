// Package load owns the open-loop transaction generator: the schedules of
// sends (pacers), the websocket connections to a node's RPC, and the send and
// reply logs (sent.csv, replies.csv).
//
// Open loop means the schedule never waits for the node: each connection has
// a sender that follows its [Pacer] and a separate reader that logs the
// replies. A sender that falls behind sends at once to catch up, and every
// send keeps the time it was due (Intended) beside the time it was made
// (Actual), so lateness is measured rather than hidden (coordinated
// omission). Sends that cannot be made — the connection is down, or the
// generator is so far behind that the load window has closed — are logged
// with their reason, never skipped.
//
// Pacers are pure functions of the send number; the generator is the only
// part that reads a clock. A shaped load (ramp, square, sine, trace; package
// shape) is one schedule spread over the connections by [Interleaved].
// What is sent comes from a [TxSource]: loadtime payloads by default, the
// lines of a file ([Lines]), or a Go user's own generator; transactions
// other than payloads are named in sent.csv by their SHA-256, which the
// chain walk matches. A sender sleeps until a send is due unless it is
// due within 50 µs; Go's timers wake late by up to the runtime poller's
// resolution (whole milliseconds on Linux), which shows as lateness of that
// order at low rates.
//
// What a send costs is mostly system calls and wake-ups (see batch.go):
// requests are written in batches when the rate allows, and at ≥ 100 tx/s
// per connection replies are read when the sender wakes rather than when
// they arrive. At low rates even pacing's cost is its wake-ups, one per
// send, and burst pacing's one per second. bench/loadgen.sh measures what a
// send costs, against CometBFT's loadtime.
package load
