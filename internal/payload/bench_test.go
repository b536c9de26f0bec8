package payload_test

import (
	"bytes"
	"testing"
	"time"

	loadtime "github.com/cometbft/cometbft/test/loadtime/payload"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cometlab/cometlab/internal/payload"
)

func benchmarkEncode(b *testing.B, size uint64) {
	e, err := payload.NewEncoder(64, 1000, size, testID)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	seq := uint64(0)
	for b.Loop() {
		seq++
		// Vary the widths of seq and time, as a run does.
		e.Encode(17, seq, testTime.Add(time.Duration(seq)*time.Microsecond))
	}
}

func benchmarkDecode(b *testing.B, size uint64) {
	e, err := payload.NewEncoder(64, 1000, size, testID)
	if err != nil {
		b.Fatal(err)
	}
	tx := bytes.Clone(e.Encode(17, 123456, testTime))
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, err := payload.Decode(tx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode1KiB(b *testing.B)    { benchmarkEncode(b, 1024) }
func BenchmarkDecode1KiB(b *testing.B)    { benchmarkDecode(b, 1024) }
func BenchmarkEncodeMaxSize(b *testing.B) { benchmarkEncode(b, payload.MaxSize) }
func BenchmarkDecodeMaxSize(b *testing.B) { benchmarkDecode(b, payload.MaxSize) }

// BenchmarkLoadtimeNewBytes1KiB and BenchmarkLoadtimeFromBytes1KiB measure
// CometBFT's own codec, for comparison.
func BenchmarkLoadtimeNewBytes1KiB(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(1024)
	for b.Loop() {
		p := &loadtime.Payload{Connections: 64, Rate: 1000, Size: 1024, Time: timestamppb.New(testTime), Id: testID[:]}
		if _, err := loadtime.NewBytes(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadtimeFromBytes1KiB(b *testing.B) {
	e, err := payload.NewEncoder(64, 1000, 1024, testID)
	if err != nil {
		b.Fatal(err)
	}
	tx := bytes.Clone(e.Encode(17, 123456, testTime))
	b.ReportAllocs()
	b.SetBytes(1024)
	for b.Loop() {
		if _, err := loadtime.FromBytes(tx); err != nil {
			b.Fatal(err)
		}
	}
}
