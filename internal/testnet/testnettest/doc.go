// Package testnettest holds helpers for tests that start real node
// processes: a lock that lets one such test run at a time across test
// binaries (LockForTest), and a check that none of a test's node processes
// outlived it (ProcessesUnder). Only tests import it.
package testnettest
