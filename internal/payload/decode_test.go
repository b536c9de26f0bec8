package payload_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	loadtime "github.com/cometbft/cometbft/test/loadtime/payload"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/cometlab/cometlab/internal/payload"
)

// Pieces of a payload proto for hand-made txs.
var (
	pbConnections = protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 4)
	pbTime        = protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType),
		protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1735787045))
	pbID      = protowire.AppendBytes(protowire.AppendTag(nil, 5, protowire.BytesType), testID[:])
	pbPadding = protowire.AppendBytes(protowire.AppendTag(nil, 6, protowire.BytesType), make([]byte, 20))
	pbSeq     = protowire.AppendVarint(protowire.AppendTag(nil, 8, protowire.VarintType), 7)
)

// tx returns "a=" + hex of the concatenated proto pieces.
func tx(pieces ...[]byte) string {
	return payload.Prefix + hex.EncodeToString(bytes.Join(pieces, nil))
}

func TestDecode(t *testing.T) {
	valid := tx(pbConnections, pbTime, pbID, pbPadding, pbSeq)
	want := payload.Header{Connections: 4, Time: time.Unix(1735787045, 0), ID: testID, Seq: 7}
	tests := []struct {
		name string
		tx   string
		want string // text in the error; "" for success with want
	}{
		{"valid", valid, ""},
		{"uppercase hex", payload.Prefix + strings.ToUpper(valid[2:]), ""},
		{"fields out of order", tx(pbSeq, pbID, pbPadding, pbTime, pbConnections), ""},
		{"unknown fields", tx(pbConnections, pbTime,
			protowire.AppendBytes(protowire.AppendTag(nil, 20, protowire.BytesType), []byte("hello")),
			protowire.AppendFixed32(protowire.AppendTag(nil, 21, protowire.Fixed32Type), 1),
			protowire.AppendFixed64(protowire.AppendTag(nil, 22, protowire.Fixed64Type), 1),
			protowire.AppendVarint(protowire.AppendTag(nil, 23, protowire.VarintType), 1<<40),
			pbID, pbPadding, pbSeq), ""},
		{"bad hex in padding is not read", strings.Replace(valid, strings.Repeat("00", 20), strings.Repeat("zz", 20), 1), ""},

		{"empty", "", payload.ErrNoPrefix.Error()},
		{"no prefix", valid[2:], payload.ErrNoPrefix.Error()},
		{"other prefix", "b=" + valid[2:], payload.ErrNoPrefix.Error()},
		{"prefix only", "a=", "payload: missing time (field 4)"},
		{"odd hex", valid[:len(valid)-1], "payload: odd number of hex digits (103)"},
		{"bad hex in tag", "a=zz", `payload: tag at byte 0: invalid hex "zz" at byte 0`},
		{"bad hex in varint", "a=08zz", `payload: field 1: invalid hex "zz" at byte 1`},
		{"bad hex in id", strings.Replace(valid, "0011223344", "00112233gg", 1), "payload: id: encoding/hex: invalid byte: U+0067 'g'"},
		{"truncated varint", "a=08ff", "payload: field 1: unexpected EOF"},
		{"truncated in id", valid[:40], "payload: field 5: length 16 exceeds the 7 bytes left: unexpected EOF"},
		{"truncated in padding", valid[:80], "payload: field 6: length 20 exceeds the 9 bytes left: unexpected EOF"},
		{"truncated in time", tx(pbConnections, pbTime[:4]), "payload: field 4: length 6 exceeds the 2 bytes left: unexpected EOF"},
		{"varint overflow", "a=08ffffffffffffffffff02", "variable length integer overflow"},
		{"field number 0", "a=0001", "payload: tag at byte 0: invalid field number 0"},
		{"wrong wire type", tx(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), nil), pbTime, pbID),
			"payload: field 1 has wire type 2, want 0"},
		{"id as varint", tx(pbTime, protowire.AppendVarint(protowire.AppendTag(nil, 5, protowire.VarintType), 1)),
			"payload: field 5 has wire type 0, want 2"},
		{"group", tx(pbTime, pbID, protowire.AppendTag(nil, 10, protowire.StartGroupType)), "payload: field 10: unsupported wire type 3"},
		{"nanos as bytes", tx(protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType),
			protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), nil)), pbID),
			"payload: field 4: field 2 has wire type 2, want 0"},
		{"id too short", tx(pbTime, protowire.AppendBytes(protowire.AppendTag(nil, 5, protowire.BytesType), testID[:8])),
			"payload: id has 8 bytes, want 16"},
		{"id too long", tx(pbTime, protowire.AppendBytes(protowire.AppendTag(nil, 5, protowire.BytesType), make([]byte, 17))),
			"payload: id has 17 bytes, want 16"},
		{"missing id", tx(pbConnections, pbTime, pbPadding), "payload: missing id (field 5)"},
		{"missing time", tx(pbConnections, pbID, pbPadding), "payload: missing time (field 4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := payload.Decode([]byte(tt.tx))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if !equalHeader(got, want) {
					t.Errorf("Decode = %+v, want %+v", got, want)
				}
				return
			}
			// protobuf varies the space in its "proto: " errors on
			// purpose, so match part of the text.
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode error = %v, want one containing %q", err, tt.want)
			}
			if got != (payload.Header{}) {
				t.Errorf("Decode returned %+v with its error, want the zero Header", got)
			}
		})
	}
	if _, err := payload.Decode(nil); !errors.Is(err, payload.ErrNoPrefix) {
		t.Errorf("Decode(nil) error = %v, want ErrNoPrefix", err)
	}
}

// TestDecodeTruncated cuts a tx at every length: Decode must fail, never
// panic, unless the cut falls between two fields after the id.
func TestDecodeTruncated(t *testing.T) {
	e, err := payload.NewEncoder(4, 1000, 300, testID)
	if err != nil {
		t.Fatal(err)
	}
	full := e.Encode(3, 12345, testTime)
	// Field ends in tx bytes: after the id (5), the padding (6), the
	// connection (7) and the seq (8).
	fieldEnds := map[int]bool{80: true, 290: true, 294: true, 300: true}
	for n := range len(full) {
		_, err := payload.Decode(full[:n])
		if (err == nil) != fieldEnds[n] {
			t.Errorf("Decode of the first %d bytes: error = %v", n, err)
		}
	}
}

// FuzzDecode checks that Decode never panics, that whatever it accepts
// loadtime reads alike and re-encodes to the same header, and that Encode →
// Decode round-trips.
func FuzzDecode(f *testing.F) {
	for _, size := range []uint64{uint64(payload.MinSize()), 300, 350} {
		e, err := payload.NewEncoder(4, 1000, size, testID)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range samples {
			f.Add(bytes.Clone(e.Encode(s.connection, s.seq, s.t)), s.connection, s.seq, s.t.Unix(), uint32(s.t.Nanosecond()))
		}
	}
	lt, err := loadtime.NewBytes(&loadtime.Payload{Connections: 1, Rate: 1, Size: 200, Id: testID[:]})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(lt, uint64(0), uint64(0), int64(0), uint32(0))
	el, err := payload.NewEncoder(4, 1000, 300, testID)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Clone(el.EncodeLane(3, 9, testTime, "100")), uint64(3), uint64(9), testTime.Unix(), uint32(0))
	for _, junk := range []string{"", "a=", "a=0", "a=zz", "b=00", "a=08ff", "a=0001", "a=2a10", "a=220b08a584d8bb06"} {
		f.Add([]byte(junk), uint64(1), uint64(2), int64(-3), uint32(4))
	}

	f.Fuzz(func(t *testing.T, tx []byte, connection, seq uint64, sec int64, nanos uint32) {
		if h, err := payload.Decode(tx); err == nil {
			if p, err := loadtime.FromBytes(tx); err == nil {
				if p.Connections != h.Connections || p.Rate != h.Rate || p.Size != h.Size ||
					!bytes.Equal(p.Id, h.ID[:]) || !p.Time.AsTime().Equal(h.Time) {
					t.Errorf("Decode = %+v, loadtime's FromBytes = %v", h, p)
				}
			}
			least := payload.MinSize()
			if h.Lane != "" {
				least = payload.MinSizeWithLane(len(h.Lane))
			}
			if h.Size%2 == 0 && h.Size >= uint64(least) && h.Size <= payload.MaxSize {
				e, err := payload.NewEncoder(h.Connections, h.Rate, h.Size, h.ID)
				if err != nil {
					t.Fatal(err)
				}
				again, err := payload.Decode(e.EncodeLane(h.Connection, h.Seq, h.Time, h.Lane))
				if err != nil || !equalHeader(again, h) {
					t.Errorf("re-encoded %+v decodes to %+v, %v", h, again, err)
				}
			}
		}

		want := payload.Header{
			Connections: 4, Rate: 1000, Size: 300, ID: testID,
			Time: time.Unix(sec, int64(nanos%1e9)), Connection: connection, Seq: seq,
		}
		e, err := payload.NewEncoder(want.Connections, want.Rate, want.Size, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		enc := e.Encode(connection, seq, want.Time)
		if len(enc) != int(want.Size) {
			t.Fatalf("len(Encode) = %d, want %d", len(enc), want.Size)
		}
		got, err := payload.Decode(enc)
		if err != nil || !equalHeader(got, want) {
			t.Errorf("Encode(%+v) decodes to %+v, %v", want, got, err)
		}
	})
}
