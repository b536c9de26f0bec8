// Package experimenttest holds what the real-node tests of experiment and
// of the packages built on it (series, qa) share: the binary fetcher
// behind the node lock, the builds a manifest's testnet needs made before
// the lock is taken, and the default manifest at a rate and duration.
// Tests only.
package experimenttest

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// Fetcher returns the binary fetcher; every test that uses it starts
// nodes, so it also takes the cross-package node lock.
func Fetcher(t *testing.T) *cometbft.Fetcher {
	t.Helper()
	testnettest.LockForTest(t)
	return BuildFetcher(t)
}

// FetcherFor builds every program m's testnet runs before it takes the
// node lock (a release with a build tag, the e2e app, an upgrade's
// release: on a fresh machine CI's background build may still be at it),
// then is Fetcher.
func FetcherFor(t *testing.T, m manifest.Resolved) *cometbft.Fetcher {
	t.Helper()
	f := BuildFetcher(t)
	if err := experiment.BuildPrograms(t.Context(), m, f); err != nil {
		t.Fatal(err)
	}
	testnettest.LockForTest(t)
	return f
}

// BuildFetcher is a fetcher without the node lock, for building releases
// (each behind its own build lock) while other packages' tests run nodes.
func BuildFetcher(t *testing.T) *cometbft.Fetcher {
	t.Helper()
	dir, err := cometbft.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return &cometbft.Fetcher{CacheDir: dir, Progress: os.Stderr}
}

// Resolved is the default manifest at rate tx/s for d.
func Resolved(t *testing.T, rate float64, d time.Duration) manifest.Resolved {
	t.Helper()
	m := manifest.Default()
	if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// SyncBuffer is a bytes.Buffer safe for the progress writers of runs.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
