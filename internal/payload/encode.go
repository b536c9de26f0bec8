package payload

import (
	"encoding/hex"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Encoder builds txs of exactly the configured size, reusing its buffers; it
// is not safe for concurrent use (one per connection).
//
// The output buffer is filled with '0' once; each Encode writes only the hex
// of the fields before the padding data (fields 1–5 and the padding's tag and
// length) and of the fields after it (7 and 8, and 9 with a lane), and resets to '0' whatever the
// previous tx wrote where this tx has padding. The cost is therefore
// independent of the size.
type Encoder struct {
	size     int    // total tx length in bytes
	protoLen int    // (size − 2) / 2
	fixed    []byte // proto of fields 1–3, the same for every tx
	id       []byte // proto of field 5
	head     []byte // scratch: proto up to the padding data
	tail     []byte // scratch: proto after the padding data
	out      []byte // the tx; "a=" + hex

	// Hex written by the previous Encode outside its padding data:
	// out[len(Prefix):headEnd] and out[tailStart:].
	headEnd, tailStart int
}

// NewEncoder returns an Encoder for a run of connections connections at rate
// tx/s each, making txs of size bytes for the run with the given id. It
// returns an error if size is odd, below MinSize() or above MaxSize.
func NewEncoder(connections, rate, size uint64, id [16]byte) (*Encoder, error) {
	switch {
	case size%2 != 0:
		return nil, fmt.Errorf("size %d must be even: a payload is %q + hex", size, Prefix)
	case size < uint64(minSize):
		return nil, fmt.Errorf("size %d is below the minimum %d: a payload must hold its header and padding", size, minSize)
	case size > MaxSize:
		return nil, fmt.Errorf("size %d is above loadtime's maximum %d", size, MaxSize)
	}
	e := &Encoder{
		size:      int(size),
		protoLen:  (int(size) - len(Prefix)) / 2,
		fixed:     make([]byte, 0, 3*maxScalarField),
		id:        make([]byte, 0, idField),
		head:      make([]byte, 0, maxHeaderLen+2*minPadding+maxVarintLen),
		tail:      make([]byte, 0, 2*maxScalarField+2+MaxLaneLen),
		out:       make([]byte, size),
		headEnd:   len(Prefix),
		tailStart: int(size),
	}
	e.fixed = appendUvarintField(e.fixed, fieldConnections, connections)
	e.fixed = appendUvarintField(e.fixed, fieldRate, rate)
	e.fixed = appendUvarintField(e.fixed, fieldSize, size)
	e.id = protowire.AppendTag(e.id, fieldID, protowire.BytesType)
	e.id = protowire.AppendBytes(e.id, id[:])
	copy(e.out, Prefix)
	fillZeroHex(e.out[len(Prefix):])
	return e, nil
}

// Encode returns the tx for sequence number seq on connection connection,
// sent at t. The returned slice is valid until the next call.
func (e *Encoder) Encode(connection, seq uint64, t time.Time) []byte {
	return e.EncodeLane(connection, seq, t, "")
}

// EncodeLane is Encode for a transaction that asks for mempool lane lane
// (loadtime's field 7, a string; the connection index then goes in field
// 9); "" is Encode. It panics when lane is longer than MaxLaneLen or the
// size leaves no room for it (below MinSizeWithLane(len(lane))): callers
// check both first.
func (e *Encoder) EncodeLane(connection, seq uint64, t time.Time, lane string) []byte {
	head := append(e.head[:0], e.fixed...)
	head = appendTime(head, t)
	head = append(head, e.id...)
	tail := e.tail[:0]
	if lane == "" {
		tail = appendUvarintField(tail, fieldConnection, connection)
	} else {
		if len(lane) > MaxLaneLen || e.size < MinSizeWithLane(len(lane)) {
			panic(fmt.Sprintf("payload: lane %q does not fit a %d-byte tx (at most %d bytes, size at least %d)", lane, e.size, MaxLaneLen, MinSizeWithLane(len(lane))))
		}
		tail = protowire.AppendTag(tail, fieldLane, protowire.BytesType)
		tail = protowire.AppendString(tail, lane)
	}
	tail = appendUvarintField(tail, fieldSeq, seq)
	if lane != "" {
		tail = appendUvarintField(tail, fieldLaneConnection, connection)
	}

	n, empty := paddingLen(e.protoLen - len(head) - len(tail))
	if empty {
		head = protowire.AppendTag(head, fieldPadding, protowire.BytesType)
		head = protowire.AppendVarint(head, 0)
	}
	head = protowire.AppendTag(head, fieldPadding, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(n))

	// The padding data is out[headEnd:tailStart], 2n hex zeros.
	headEnd := len(Prefix) + 2*len(head)
	tailStart := e.size - 2*len(tail)
	if e.headEnd > headEnd {
		fillZeroHex(e.out[headEnd:min(e.headEnd, tailStart)])
	}
	if e.tailStart < tailStart {
		fillZeroHex(e.out[max(e.tailStart, headEnd):tailStart])
	}
	hex.Encode(e.out[len(Prefix):headEnd], head)
	hex.Encode(e.out[tailStart:], tail)
	e.headEnd, e.tailStart = headEnd, tailStart
	return e.out
}

// paddingLen returns the length n of the padding data that makes the padding
// field(s) exactly r bytes long (r ≥ 2): 1 + len(varint(n)) + n = r. For the
// r that no n fits (r = k + 1 + 128^k: 130, 16387, …), it returns n for r − 2
// and empty = true, meaning an empty padding field (2 bytes) goes first.
func paddingLen(r int) (n int, empty bool) {
	if r < minPadding {
		// NewEncoder's size check rules this out.
		panic(fmt.Sprintf("payload: %d bytes left for padding, need %d", r, minPadding))
	}
	for {
		for k := 1; k <= maxVarintLen; k++ {
			n = r - 1 - k
			if n < 0 {
				break
			}
			if protowire.SizeVarint(uint64(n)) == k {
				return n, empty
			}
		}
		// A gap is a single value and r − 2 is never one, so this loops
		// at most once.
		r -= minPadding
		empty = true
	}
}

// appendUvarintField appends field num with value v, or nothing if v is zero
// (proto3).
func appendUvarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// appendTime appends field 4, the google.protobuf.Timestamp of t. The field is
// always present, as it is for loadtime's non-nil Timestamp; its seconds and
// nanos are omitted when zero.
func appendTime(b []byte, t time.Time) []byte {
	sec := uint64(t.Unix())         // int64, two's complement varint
	nanos := uint64(t.Nanosecond()) // int32 in [0, 1e9)
	bodyLen := 0
	if sec != 0 {
		bodyLen += 1 + protowire.SizeVarint(sec)
	}
	if nanos != 0 {
		bodyLen += 1 + protowire.SizeVarint(nanos)
	}
	b = protowire.AppendTag(b, fieldTime, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(bodyLen))
	b = appendUvarintField(b, fieldSeconds, sec)
	return appendUvarintField(b, fieldNanos, nanos)
}

// fillZeroHex sets b to '0' characters, the hex of zero bytes.
func fillZeroHex(b []byte) {
	for i := range b {
		b[i] = '0'
	}
}
