package payload_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

var (
	testID   = [16]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	testTime = time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.UTC)
)

// sample is the per-tx part of a header.
type sample struct {
	connection, seq uint64
	t               time.Time
}

// samples alternate long and short encodings, so that an Encoder must clean
// up after a previous tx whose fields reached into this tx's padding.
var samples = []sample{
	{0, 0, time.Unix(0, 0)},
	{math.MaxUint64, math.MaxUint64, time.Unix(-1, 999_999_999)}, // every field at full width
	{1, 1, testTime},
	{0, math.MaxUint64, time.Time{}}, // year 1: negative seconds
	{127, 128, time.Unix(1<<40, 1)},
	{3, 12345, testTime},
	{16383, 16384, time.Unix(1<<31, 999_999_999)},
	{0, 0, time.Unix(0, 0)},
}

// encoderConfigs are the run-wide fields; the second has them at full width.
var encoderConfigs = []struct {
	name              string
	connections, rate uint64
	id                [16]byte
}{
	{"small", 4, 1000, testID},
	{"wide", math.MaxUint64, math.MaxUint64, [16]byte{}},
}

// field is one field of a payload proto, as parsed by parseProto.
type field struct {
	num   protowire.Number
	value uint64 // varint fields
	data  []byte // length-delimited fields
}

// parseProto hex-decodes a whole tx and splits its proto into fields,
// independently of Decode.
func parseProto(t testing.TB, tx []byte) (proto []byte, fields []field) {
	t.Helper()
	if !bytes.HasPrefix(tx, []byte(payload.Prefix)) {
		t.Fatalf("tx %.20q... lacks prefix", tx)
	}
	proto, err := hex.DecodeString(string(tx[len(payload.Prefix):]))
	if err != nil {
		t.Fatalf("hex: %v", err)
	}
	for b := proto; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num}
		switch typ {
		case protowire.VarintType:
			f.value, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.data, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("field %d: unexpected wire type %d", num, typ)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		fields = append(fields, f)
	}
	return proto, fields
}

// checkLayout checks what Decode does not look at: lowercase hex, fields in
// number order, no zero scalars, and padding that is all zeros with at most
// one empty padding field before it. It returns the number of padding fields.
func checkLayout(t testing.TB, tx []byte) (paddingFields int) {
	t.Helper()
	if i := bytes.IndexFunc(tx, func(r rune) bool { return 'A' <= r && r <= 'Z' }); i >= 0 {
		t.Errorf("tx has uppercase hex at %d", i)
	}
	_, fields := parseProto(t, tx)
	last := protowire.Number(0)
	for i, f := range fields {
		if f.num < last || (f.num == last && f.num != 6) {
			t.Errorf("field %d after field %d", f.num, last)
		}
		last = f.num
		switch f.num {
		case 7:
			if f.data == nil && f.value == 0 {
				t.Errorf("field 7 written as the connection with value 0")
			}
		case 1, 2, 3, 8, 9:
			if f.value == 0 {
				t.Errorf("field %d written with value 0", f.num)
			}
		case 6:
			paddingFields++
			if paddingFields == 2 && len(fields[i-1].data) != 0 {
				t.Errorf("first of two padding fields has %d bytes, want 0", len(fields[i-1].data))
			}
			if bytes.ContainsFunc(f.data, func(r rune) bool { return r != 0 }) {
				t.Errorf("padding is not all zeros")
			}
		}
	}
	if paddingFields < 1 || paddingFields > 2 {
		t.Errorf("%d padding fields, want 1 or 2", paddingFields)
	}
	return paddingFields
}

func equalHeader(a, b payload.Header) bool {
	return a.Connections == b.Connections && a.Rate == b.Rate && a.Size == b.Size &&
		a.Time.Equal(b.Time) && a.ID == b.ID && a.Connection == b.Connection && a.Seq == b.Seq && a.Lane == b.Lane
}

func TestMinSize(t *testing.T) {
	if got, want := payload.MinSize(), 190; got != want {
		t.Errorf("MinSize() = %d, want %d", got, want)
	}
	// MinSize holds the widest header with a single empty padding field,
	// except that field 3, the size itself, takes 2 bytes here rather than
	// the 10 MinSize allows for.
	e, err := payload.NewEncoder(math.MaxUint64, math.MaxUint64, uint64(payload.MinSize()), testID)
	if err != nil {
		t.Fatal(err)
	}
	tx := e.Encode(math.MaxUint64, math.MaxUint64, time.Unix(-1, 999_999_999))
	want := 10 - protowire.SizeVarint(uint64(payload.MinSize()))
	_, fields := parseProto(t, tx)
	for _, f := range fields {
		if f.num == 6 && len(f.data) != want {
			t.Errorf("widest header at MinSize has %d bytes of padding, want %d", len(f.data), want)
		}
	}
}

func TestNewEncoderErrors(t *testing.T) {
	tests := []struct {
		size uint64
		want string // error text; "" for no error
	}{
		{1024, ""},
		{uint64(payload.MinSize()), ""},
		{payload.MaxSize, ""},
		{1023, `size 1023 must be even: a payload is "a=" + hex`},
		{uint64(payload.MinSize()) - 2, "size 188 is below the minimum 190: a payload must hold its header and padding"},
		{0, "size 0 is below the minimum 190: a payload must hold its header and padding"},
		{payload.MaxSize + 2, "size 4194306 is above loadtime's maximum 4194304"},
		{math.MaxUint64 - 1, "size 18446744073709551614 is above loadtime's maximum 4194304"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.size), func(t *testing.T) {
			_, err := payload.NewEncoder(1, 1, tt.size, testID)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("NewEncoder(size %d) error = %q, want %q", tt.size, got, tt.want)
			}
		})
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		size    uint64
		padding int // padding fields: 2 where the size hits the varint gap
	}{
		{300, 1},
		{350, 2}, // remainder 130 for this header
		{1024, 1},
		{4096, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.size), func(t *testing.T) {
			e, err := payload.NewEncoder(4, 1000, tt.size, testID)
			if err != nil {
				t.Fatal(err)
			}
			tx := e.Encode(3, 12345, testTime)
			if n := checkLayout(t, tx); n != tt.padding {
				t.Errorf("%d padding fields, want %d", n, tt.padding)
			}
			path := filepath.Join("testdata", fmt.Sprintf("tx_%d.golden", tt.size))
			resultstest.Golden(t, path, tx)
		})
	}
}

// TestPaddingGaps checks both gaps a tx below 4 MiB can hit: remainders of
// 130 and 16387 bytes for the padding.
func TestPaddingGaps(t *testing.T) {
	// For the golden header (44 bytes besides padding; 45 once the size
	// needs 3 varint bytes): size = 2 + 2·(44 + 130) and 2 + 2·(45 + 16387).
	for _, size := range []uint64{350, 32866} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			e, err := payload.NewEncoder(4, 1000, size, testID)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []uint64{size - 2, size, size + 2} {
				e, _ := payload.NewEncoder(4, 1000, s, testID)
				want := 1
				if s == size {
					want = 2
				}
				if n := checkLayout(t, e.Encode(3, 12345, testTime)); n != want {
					t.Errorf("size %d: %d padding fields, want %d", s, n, want)
				}
			}
			tx := e.Encode(3, 12345, testTime)
			if len(tx) != int(size) {
				t.Errorf("len = %d, want %d", len(tx), size)
			}
			if _, err := payload.Decode(tx); err != nil {
				t.Errorf("Decode: %v", err)
			}
		})
	}
}

// TestExactSize encodes every even size from MinSize() to 20000 with headers
// of many widths, in turn with one Encoder per size. checkLayout, which
// hex-decodes the whole tx, runs on every size up to 1000 (the padding gap
// lies below 450 for any header) and on every 20th size beyond.
func TestExactSize(t *testing.T) {
	maxSize := 20000
	if testing.Short() {
		maxSize = 2000
	}
	for _, cfg := range encoderConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			gaps := 0
			for size := payload.MinSize(); size <= maxSize; size += 2 {
				e, err := payload.NewEncoder(cfg.connections, cfg.rate, uint64(size), cfg.id)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range samples {
					tx := e.Encode(s.connection, s.seq, s.t)
					if len(tx) != size {
						t.Fatalf("size %d, %+v: len = %d", size, s, len(tx))
					}
					if size <= 1000 || size%40 == 0 {
						if checkLayout(t, tx) == 2 {
							gaps++
						}
					}
					want := payload.Header{
						Connections: cfg.connections, Rate: cfg.rate, Size: uint64(size),
						Time: s.t, ID: cfg.id, Connection: s.connection, Seq: s.seq,
					}
					got, err := payload.Decode(tx)
					if err != nil {
						t.Fatalf("size %d, %+v: Decode: %v", size, s, err)
					}
					if !equalHeader(got, want) {
						t.Fatalf("size %d: Decode = %+v, want %+v", size, got, want)
					}
				}
			}
			if gaps == 0 {
				t.Errorf("no size hit the padding gap")
			}
		})
	}
}

func TestAllocs(t *testing.T) {
	e, err := payload.NewEncoder(4, 1000, 1024, testID)
	if err != nil {
		t.Fatal(err)
	}
	seq := uint64(0)
	if n := testing.AllocsPerRun(100, func() {
		seq++
		e.Encode(3, seq, testTime)
	}); n != 0 {
		t.Errorf("Encode: %v allocs per run, want 0", n)
	}
	tx := bytes.Clone(e.Encode(3, 12345, testTime))
	if n := testing.AllocsPerRun(100, func() {
		if _, err := payload.Decode(tx); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Decode: %v allocs per run, want 0", n)
	}
}
