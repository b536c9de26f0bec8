// Package testnettest holds helpers for tests that start real node
// processes: a lock that lets one such test run at a time across test
// binaries (LockForTest), a check that none of a test's node processes
// outlived it (ProcessesUnder), the attributes of a server process a test
// starts (ChildAttr), and the one way such a test gives up for want of
// something it needs (Prereq: a skip, a failure under CI=true). Only tests
// import it.
package testnettest
