package web

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"github.com/cometlab/cometlab/internal/history"
)

// detectCacheSize is how many series' change points memoDetect keeps.
const detectCacheSize = 4096

// memoDetect is detect remembering its answers by the series it was
// given: a detector is a pure function of the values, and the change-point
// page asks it for every figure of every series at each load, while the
// runs change only when one is added. When full, the memory is emptied.
func memoDetect(detect history.Detector) history.Detector {
	if detect == nil {
		return nil
	}
	var (
		mu   sync.Mutex
		seen = map[[sha256.Size]byte][]history.ChangePoint{}
	)
	return func(xs []float64) []history.ChangePoint {
		h := sha256.New()
		var b [8]byte
		for _, x := range xs {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
		var key [sha256.Size]byte
		h.Sum(key[:0])
		mu.Lock()
		cps, ok := seen[key]
		mu.Unlock()
		if ok {
			return slices.Clone(cps)
		}
		cps = detect(xs)
		mu.Lock()
		if len(seen) >= detectCacheSize {
			clear(seen)
		}
		seen[key] = slices.Clone(cps)
		mu.Unlock()
		return cps
	}
}

// memo keeps page values by a key that names what they were computed
// from (the index's generation among it), at most n; when full, it is
// emptied.
type memo[T any] struct {
	mu   sync.Mutex
	n    int
	vals map[string]T
}

func newMemo[T any](n int) *memo[T] { return &memo[T]{n: n, vals: map[string]T{}} }

func (m *memo[T]) get(key string) (T, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vals[key]
	return v, ok
}

func (m *memo[T]) put(key string, v T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.vals) >= m.n {
		clear(m.vals)
	}
	m.vals[key] = v
}
