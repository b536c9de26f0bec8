// Package payload owns the transaction payload codec: the bytes cometlab
// sends to a chain and reads back from its blocks.
//
// A payload is byte-compatible with CometBFT's test/loadtime payload:
//
//	tx = "a=" + lowercase hex(proto)
//
// where proto is the protobuf encoding of
//
//	message Payload {
//	  uint64                    connections = 1; // loadtime
//	  uint64                    rate        = 2; // loadtime
//	  uint64                    size        = 3; // loadtime
//	  google.protobuf.Timestamp time        = 4; // loadtime
//	  bytes                     id          = 5; // loadtime
//	  bytes                     padding     = 6; // loadtime
//	  uint64                    connection  = 7; // cometlab only
//	  uint64                    seq         = 8; // cometlab only
//	}
//
// Fields are written in field-number order, zero scalars omitted (proto3), so
// loadtime's decoder (proto.Unmarshal) reads fields 1–6 and keeps 7 and 8 as
// unknown fields; loadtime's report tool works on cometlab's txs unchanged.
//
// Unlike loadtime, which only approximates the configured size, every tx made
// by an [Encoder] is exactly Size bytes long:
//
//	len(tx) = 2 + 2·len(proto)          (so Size must be even)
//	len(proto) = (Size − 2) / 2
//
// and the padding length is chosen per tx from the varint widths of the other
// fields. The length prefix of the padding grows by one byte at 128, 16384, …,
// so a few remainders cannot be filled by a single padding field; for those
// the encoder writes an empty padding field (2 bytes) followed by the real
// one, which proto3 reads as the last value. Padding bytes are zeros.
//
// Encoding and decoding use protowire directly, without generated code or
// reflection: [Encoder.Encode] does not allocate, and [Decode] hex-decodes only
// the fields it reads, skipping the padding by its length.
package payload
