package testnet

import (
	"os"
	"path/filepath"
	"syscall"
)

// LockForTest is testnettest.LockForTest for the one caller that cannot
// move yet (cmd/cometlab/compare_integration_test.go, being restructured);
// it takes the same lock. It does not import "testing": tb is any
// testing.TB.
//
// Deprecated: use testnettest.LockForTest. This goes once its last caller
// has moved.
func LockForTest(tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}) {
	tb.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "cometlab-test-nodes.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatalf("test lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("test lock: %v", err)
	}
	tb.Cleanup(func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() })
}
