// Package experimenttest holds what the real-node tests of experiment and
// of the packages built on it (series, qa) share: the binary fetcher
// behind the node lock, the builds a manifest's testnet needs made before
// the lock is taken, and the default manifest at a rate and duration.
// Tests only.
package experimenttest

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// Fetcher returns the binary fetcher; every test that uses it starts
// nodes, so it also takes the cross-package node lock (LockNodes).
func Fetcher(t *testing.T) *cometbft.Fetcher {
	t.Helper()
	LockNodes(t)
	return BuildFetcher(t)
}

// proving holds the names of the top-level tests that called Proves.
var proving sync.Map

// Proves marks t as a test that proves rather than measures: what it
// checks holds whatever else the machine runs (every transaction
// accounted, a file written, a verdict named by the perturbation it
// made), never a timing, a latency, a slow height or the host's CPU. It
// runs in parallel with its package's other such tests (t.Parallel: call
// it first, before t.Setenv, which a parallel test may not use), and its
// node lock (LockNodes, in every helper here) is the shared one, so that
// two such tests' testnets run at once (testnettest.LockSharedForTest).
func Proves(t *testing.T) {
	t.Helper()
	t.Parallel()
	proving.Store(topTest(t.Name()), true)
}

// LockNodes takes the node lock for t: the shared one for a test that
// Proves (and its subtests), else the exclusive one.
func LockNodes(t *testing.T) {
	t.Helper()
	if _, ok := proving.Load(topTest(t.Name())); ok {
		testnettest.LockSharedForTest(t)
		return
	}
	testnettest.LockForTest(t)
}

// topTest is the top-level test of a test's (or subtest's) name.
func topTest(name string) string {
	top, _, _ := strings.Cut(name, "/")
	return top
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
	LockNodes(t)
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
