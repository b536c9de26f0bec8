package collect

import (
	"encoding/binary"
	"testing"
)

func TestSeqSet(t *testing.T) {
	s := newSeqSet()
	steps := []struct {
		k    connSeq
		want bool
	}{
		{connSeq{0, 0}, false},
		{connSeq{0, 0}, true},
		{connSeq{0, 63}, false},
		{connSeq{0, 64}, false},
		{connSeq{1, 64}, false}, // another connection
		{connSeq{0, 64}, true},
		{connSeq{0, 5000}, false}, // grows the bitmap
		{connSeq{0, 5000}, true},
		{connSeq{0, 1 << 40}, false}, // far ahead: kept loose
		{connSeq{0, 1 << 40}, true},
		{connSeq{2, seqAhead + 5}, false}, // beyond a new connection's reach
		{connSeq{2, 7}, false},
		{connSeq{2, seqAhead + 5}, true},
	}
	for i, st := range steps {
		if got := s.add(st.k); got != st.want {
			t.Fatalf("step %d add(%v) = %v, want %v", i, st.k, got, st.want)
		}
	}
	if n := len(s.bits[0]); n*8 > 1<<12 {
		t.Errorf("connection 0's bitmap is %d words after seq 5000 and 1<<40", n)
	}
}

// A bitmap filled to 2 M sequences is 256 KiB, not the ~100 MB a map took.
func TestSeqSetCompact(t *testing.T) {
	s := newSeqSet()
	for q := range uint64(2_000_000) {
		s.add(connSeq{0, q})
	}
	if n := len(s.bits[0]) * 8; n > 1<<19 {
		t.Errorf("bitmap of 2 M sequences takes %d bytes", n)
	}
	if len(s.loose) != 0 {
		t.Errorf("%d dense sequences went loose", len(s.loose))
	}
}

// FuzzSeqSet checks the set against a map on any sequence of adds, the
// loose spill and its move back into the bitmap included.
func FuzzSeqSet(f *testing.F) {
	f.Add([]byte{0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ref := newSeqSet(), map[connSeq]bool{}
		for len(data) >= 9 {
			k := connSeq{int(data[0] % 3), binary.LittleEndian.Uint64(data[1:9]) % (4 * seqAhead)}
			data = data[9:]
			if got, want := s.add(k), ref[k]; got != want {
				t.Fatalf("add(%v) = %v, want %v", k, got, want)
			}
			ref[k] = true
		}
	})
}
