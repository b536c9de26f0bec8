package testnettest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// free reports whether name in the temp directory can be flocked how now.
func free(t *testing.T, name string, how int) bool {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		return false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// TestNodeLocks: two shared takers hold the node lock at once and fill
// both slots, so a third shared one and an exclusive one would wait; an
// exclusive taker keeps both kinds out; each is released when its test
// ends.
func TestNodeLocks(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv(plotSizeEnv, "1x1")
	t.Run("shared", func(t *testing.T) {
		LockSharedForTest(t)
		t.Run("second", func(t *testing.T) {
			LockSharedForTest(t)
			if free(t, "cometlab-nodes.slot0", syscall.LOCK_EX) || free(t, "cometlab-nodes.slot1", syscall.LOCK_EX) {
				t.Error("two shared takers left a slot free")
			}
			if free(t, nodesLock, syscall.LOCK_EX) {
				t.Error("an exclusive lock was free beside shared takers")
			}
			if !free(t, nodesGate, syscall.LOCK_EX) {
				t.Error("the gate is held after the lock was taken")
			}
		})
		if !free(t, "cometlab-nodes.slot0", syscall.LOCK_EX) && !free(t, "cometlab-nodes.slot1", syscall.LOCK_EX) {
			t.Error("the second taker's slot was not released when its test ended")
		}
		if free(t, nodesLock, syscall.LOCK_EX) {
			t.Error("an exclusive lock was free beside a shared taker")
		}
	})
	if !free(t, nodesLock, syscall.LOCK_EX) {
		t.Error("the shared lock outlived its test")
	}
	t.Run("exclusive", func(t *testing.T) {
		LockForTest(t)
		if free(t, nodesLock, syscall.LOCK_SH) {
			t.Error("a shared lock was free beside an exclusive taker")
		}
		if !free(t, nodesGate, syscall.LOCK_EX) {
			t.Error("the gate is held after the lock was taken")
		}
	})
	if !free(t, nodesLock, syscall.LOCK_EX) {
		t.Error("the exclusive lock outlived its test")
	}
}
