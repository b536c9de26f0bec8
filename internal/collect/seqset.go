package collect

// seqSet is the set of (connection, sequence) pairs the walker has seen,
// one bit per pair: loadtime numbers each connection's sends 0, 1, 2, …,
// so a run of n transactions costs about n/8 bytes however long it lasts
// (a Go map cost ~50 B a pair, the last thing in `cometlab run` that grew
// with the run). A sequence far beyond the bitmap's end (not a loadtime
// sender's) is kept in a map instead, so that no payload can make the
// bitmap jump in size.
type seqSet struct {
	bits  map[int][]uint64
	loose map[connSeq]struct{}
}

// seqAhead is how far past a connection's bitmap a sequence may be and
// still extend it (128 KiB of bitmap at most per jump).
const seqAhead = 1 << 20

func newSeqSet() *seqSet {
	return &seqSet{bits: map[int][]uint64{}, loose: map[connSeq]struct{}{}}
}

// add records k and reports whether it was there already.
func (s *seqSet) add(k connSeq) (had bool) {
	b := s.bits[k.conn]
	word := k.seq / 64
	if word >= uint64(len(b)) {
		if k.seq >= uint64(len(b))*64+seqAhead {
			_, had = s.loose[k]
			s.loose[k] = struct{}{}
			return had
		}
		n := max(2*len(b), int(word)+1, 16)
		nb := make([]uint64, n)
		copy(nb, b)
		b = nb
		s.bits[k.conn] = b
	}
	mask := uint64(1) << (k.seq % 64)
	if b[word]&mask != 0 {
		return true
	}
	if _, ok := s.loose[k]; ok { // seen while it was beyond the bitmap
		b[word] |= mask
		delete(s.loose, k)
		return true
	}
	b[word] |= mask
	return false
}
