package payload

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrNoPrefix is returned by Decode for a tx that does not start with Prefix:
// not a loadtime-style payload at all, as opposed to a damaged one.
var ErrNoPrefix = errors.New("payload: missing \"a=\" prefix")

// Decode parses a tx made by an Encoder or by loadtime. It returns an error,
// never panics, for anything that is not a loadtime-style payload: no prefix,
// an odd number of hex digits, bad hex in a field it reads, a malformed or
// truncated proto, a known field with the wrong wire type, a missing time, or
// an id that is missing or not 16 bytes.
//
// Decode hex-decodes only the bytes it parses. The contents of the padding
// and of unknown length-delimited fields are skipped by their length without
// being read, so bad hex digits there go unnoticed. Fields 7, 8 and 9 after
// the padding are read: field 7 is the connection index as a varint, or a
// lane (v2.0 loadtime's string, at most MaxLaneLen bytes), which moves the
// connection index to field 9. As in proto3, the last value of a repeated
// scalar field wins and repeated time fields merge. The time is returned in
// UTC.
//
// Decode does not allocate unless it returns an error or the payload
// carries a lane (its string).
func Decode(tx []byte) (Header, error) {
	if !bytes.HasPrefix(tx, []byte(Prefix)) {
		return Header{}, ErrNoPrefix
	}
	h, err := decode(tx[len(Prefix):])
	if err != nil {
		return Header{}, fmt.Errorf("payload: %w", err)
	}
	return h, nil
}

// decode parses the hex digits src of a payload proto.
func decode(src []byte) (Header, error) {
	var h Header
	if len(src)%2 != 0 {
		return h, fmt.Errorf("odd number of hex digits (%d)", len(src))
	}
	r := reader{hex: src}
	end := len(src) / 2
	var (
		sec      int64
		nanos    int32
		haveTime bool
		haveID   bool
	)
	for r.pos < end {
		num, typ, err := r.tag(end)
		if err != nil {
			return h, err
		}
		switch num {
		case fieldLane:
			if err := r.lane(typ, end, &h); err != nil {
				return h, err
			}
		case fieldConnections, fieldRate, fieldSize, fieldLaneConnection, fieldSeq:
			if typ != protowire.VarintType {
				return h, wireTypeError(num, typ, protowire.VarintType)
			}
			v, err := r.varint(end)
			if err != nil {
				return h, fieldError(num, err)
			}
			switch num {
			case fieldConnections:
				h.Connections = v
			case fieldRate:
				h.Rate = v
			case fieldSize:
				h.Size = v
			case fieldLaneConnection:
				h.Connection = v
			case fieldSeq:
				h.Seq = v
			}
		case fieldTime, fieldID, fieldPadding:
			if typ != protowire.BytesType {
				return h, wireTypeError(num, typ, protowire.BytesType)
			}
			n, err := r.length(end)
			if err != nil {
				return h, fieldError(num, err)
			}
			switch num {
			case fieldTime:
				if err := r.timestamp(r.pos+n, &sec, &nanos); err != nil {
					return h, fieldError(num, err)
				}
				haveTime = true
			case fieldID:
				if n != idLen {
					return h, fmt.Errorf("id has %d bytes, want %d", n, idLen)
				}
				if _, err := hex.Decode(h.ID[:], src[2*r.pos:2*(r.pos+n)]); err != nil {
					return h, fmt.Errorf("id: %w", err)
				}
				haveID = true
				r.pos += n
			case fieldPadding:
				r.pos += n
			}
		default:
			if err := r.skip(typ, end); err != nil {
				return h, fieldError(num, err)
			}
		}
	}
	if !haveTime {
		return h, errors.New("missing time (field 4)")
	}
	if !haveID {
		return h, errors.New("missing id (field 5)")
	}
	h.Time = time.Unix(sec, int64(nanos)).UTC()
	return h, nil
}

// lane reads field 7, of wire type typ: cometlab's connection index (a
// varint) into h.Connection, or v2.0 loadtime's lane (a string) into
// h.Lane.
func (r *reader) lane(typ protowire.Type, end int, h *Header) error {
	switch typ {
	case protowire.VarintType:
		v, err := r.varint(end)
		if err != nil {
			return fieldError(fieldLane, err)
		}
		h.Connection = v
	case protowire.BytesType:
		n, err := r.length(end)
		if err != nil {
			return fieldError(fieldLane, err)
		}
		if n > MaxLaneLen {
			return fmt.Errorf("lane has %d bytes, at most %d", n, MaxLaneLen)
		}
		var buf [MaxLaneLen]byte
		if _, err := hex.Decode(buf[:n], r.hex[2*r.pos:2*(r.pos+n)]); err != nil {
			return fmt.Errorf("lane: %w", err)
		}
		h.Lane = string(buf[:n])
		r.pos += n
	default:
		return wireTypeError(fieldLane, typ, protowire.BytesType)
	}
	return nil
}

// reader reads proto bytes from their hex encoding, decoding each byte only
// when it is read.
type reader struct {
	hex []byte // hex digits of the whole proto message
	pos int    // offset of the next byte, in decoded bytes
}

// varint reads a varint that ends before end.
func (r *reader) varint(end int) (uint64, error) {
	// Fast path: tags and most lengths are a single byte.
	if r.pos < end {
		if c, ok := unhex(r.hex[2*r.pos], r.hex[2*r.pos+1]); ok && c < 0x80 {
			r.pos++
			return uint64(c), nil
		}
	}
	var buf [maxVarintLen]byte
	k := 0
	for k < len(buf) && r.pos+k < end {
		c, ok := unhex(r.hex[2*(r.pos+k)], r.hex[2*(r.pos+k)+1])
		if !ok {
			return 0, fmt.Errorf("invalid hex %q at byte %d", r.hex[2*(r.pos+k):2*(r.pos+k)+2], r.pos+k)
		}
		buf[k] = c
		k++
		if c < 0x80 {
			break
		}
	}
	v, n := protowire.ConsumeVarint(buf[:k])
	if n < 0 {
		return 0, protowire.ParseError(n)
	}
	r.pos += n
	return v, nil
}

// tag reads a field tag that ends before end.
func (r *reader) tag(end int) (protowire.Number, protowire.Type, error) {
	at := r.pos
	v, err := r.varint(end)
	if err != nil {
		return 0, 0, fmt.Errorf("tag at byte %d: %w", at, err)
	}
	num, typ := protowire.DecodeTag(v)
	if !num.IsValid() {
		return 0, 0, fmt.Errorf("tag at byte %d: invalid field number %d", at, v>>3)
	}
	return num, typ, nil
}

// length reads the length of a length-delimited field and checks that its
// data ends before end.
func (r *reader) length(end int) (int, error) {
	v, err := r.varint(end)
	if err != nil {
		return 0, err
	}
	if v > uint64(end-r.pos) {
		return 0, fmt.Errorf("length %d exceeds the %d bytes left: %w", v, end-r.pos, io.ErrUnexpectedEOF)
	}
	return int(v), nil
}

// skip skips the value of an unknown field of wire type typ.
func (r *reader) skip(typ protowire.Type, end int) error {
	var n int
	switch typ {
	case protowire.VarintType:
		_, err := r.varint(end)
		return err
	case protowire.Fixed32Type:
		n = 4
	case protowire.Fixed64Type:
		n = 8
	case protowire.BytesType:
		var err error
		if n, err = r.length(end); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unsupported wire type %d", typ)
	}
	if n > end-r.pos {
		return io.ErrUnexpectedEOF
	}
	r.pos += n
	return nil
}

// timestamp reads the body of a google.protobuf.Timestamp that ends at end,
// updating the fields it holds.
func (r *reader) timestamp(end int, sec *int64, nanos *int32) error {
	for r.pos < end {
		num, typ, err := r.tag(end)
		if err != nil {
			return err
		}
		if num != fieldSeconds && num != fieldNanos {
			if err := r.skip(typ, end); err != nil {
				return err
			}
			continue
		}
		if typ != protowire.VarintType {
			return wireTypeError(num, typ, protowire.VarintType)
		}
		v, err := r.varint(end)
		if err != nil {
			return err
		}
		if num == fieldSeconds {
			*sec = int64(v)
		} else {
			*nanos = int32(v) // proto int32: the low 32 bits
		}
	}
	return nil
}

// unhex decodes the byte written as the hex digits hi, lo (either case).
func unhex(hi, lo byte) (byte, bool) {
	h, l := unhexTable[hi], unhexTable[lo]
	return h<<4 | l, h|l < 0x10
}

// unhexTable maps a hex digit (either case) to its value and any other byte
// to 0xff.
const unhexTable = "" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\xff\xff\xff\xff\xff\xff" +
	"\xff\x0a\x0b\x0c\x0d\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\x0a\x0b\x0c\x0d\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"

func wireTypeError(num protowire.Number, got, want protowire.Type) error {
	return fmt.Errorf("field %d has wire type %d, want %d", num, got, want)
}

func fieldError(num protowire.Number, err error) error {
	return fmt.Errorf("field %d: %w", num, err)
}
