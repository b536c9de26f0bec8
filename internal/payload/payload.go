package payload

import (
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Header is what a payload carries besides padding.
type Header struct {
	Connections uint64    // number of connections of the run (loadtime field 1)
	Rate        uint64    // tx/s per connection (field 2)
	Size        uint64    // configured total tx size in bytes (field 3)
	Time        time.Time // send time (field 4)
	ID          [16]byte  // run UUID bytes (field 5)
	Connection  uint64    // cometlab: connection index (field 7, or 9 with a lane)
	Seq         uint64    // cometlab: sequence number within the connection (field 8)
	// Lane is the mempool lane the transaction asks for, "" for none:
	// loadtime's field 7, a string since v2.0, which v2.0's e2e app reads in
	// CheckTx. A payload with a lane carries its connection index in field
	// 9 instead of 7.
	Lane string
}

// MaxLaneLen is the longest lane id a payload carries, in bytes.
const MaxLaneLen = 32

// Prefix starts every payload tx. loadtime uses it as the key for CometBFT's
// kvstore application, so the store keeps a single entry however many txs a
// run sends.
const Prefix = "a="

// MaxSize is the largest tx size in bytes, loadtime's maximum (4 MiB).
const MaxSize = 4 << 20

// Field numbers of the payload message; 1–6 are loadtime's.
const (
	fieldConnections protowire.Number = 1
	fieldRate        protowire.Number = 2
	fieldSize        protowire.Number = 3
	fieldTime        protowire.Number = 4
	fieldID          protowire.Number = 5
	fieldPadding     protowire.Number = 6
	fieldConnection  protowire.Number = 7
	fieldSeq         protowire.Number = 8
	// fieldLane is loadtime's field 7 of v2.0, a string: with a lane the
	// connection index moves to fieldLaneConnection.
	fieldLane           protowire.Number = 7
	fieldLaneConnection protowire.Number = 9
)

// Field numbers of google.protobuf.Timestamp.
const (
	fieldSeconds protowire.Number = 1
	fieldNanos   protowire.Number = 2
)

// Widths in bytes of the proto encoding. All field numbers are below 16, so
// every tag is one byte.
const (
	idLen          = 16
	maxVarintLen   = 10                                 // any uint64, or a negative int64
	maxScalarField = 1 + maxVarintLen                   // tag + varint
	maxNanosLen    = 5                                  // nanos < 1e9 < 2^30 ⇒ ⌈30/7⌉ bytes
	maxTimeBody    = 1 + maxVarintLen + 1 + maxNanosLen // seconds + nanos
	maxTimeField   = 1 + 1 + maxTimeBody                // tag + length + body (< 128)
	idField        = 1 + 1 + idLen                      // tag + length + id
	minPadding     = 2                                  // tag + zero length

	// maxHeaderLen is the longest proto encoding of a Header: fields 1, 2,
	// 3, 7 and 8 at full width, a negative seconds and a 16-byte id.
	maxHeaderLen = 5*maxScalarField + maxTimeField + idField

	// minSize is the smallest tx that holds any header plus the padding
	// field: 2 + 2·(92 + 2) = 190 bytes.
	minSize = len(Prefix) + 2*(maxHeaderLen+minPadding)
)

// MinSize returns the smallest total size in bytes that can hold any header
// (all numeric fields at their maximum width, time of any value, a 16-byte
// id) plus the padding field: 2 + 2·(92 + 2) = 190. Sizes below it are
// rejected by NewEncoder and the manifest.
func MinSize() int { return minSize }

// MinSizeWithLane returns the smallest total size that can hold any header
// with a lane id of n bytes (MinSize plus the lane field's 2 + n bytes, in
// hex).
func MinSizeWithLane(n int) int { return minSize + 2*(2+n) }
