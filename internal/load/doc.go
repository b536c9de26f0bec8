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
// part that reads a clock.
package load
