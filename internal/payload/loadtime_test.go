package payload_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	loadtime "github.com/cometbft/cometbft/test/loadtime/payload"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cometlab/cometlab/internal/payload"
)

// crossSizes are the sizes checked against CometBFT's loadtime package.
var crossSizes = []uint64{190, 300, 350, 1024, 4096, 32866, 1 << 20}

// TestLoadtimeReadsOurs decodes our txs with loadtime's FromBytes.
func TestLoadtimeReadsOurs(t *testing.T) {
	for _, cfg := range encoderConfigs {
		for _, size := range crossSizes {
			t.Run(fmt.Sprintf("%s/%d", cfg.name, size), func(t *testing.T) {
				e, err := payload.NewEncoder(cfg.connections, cfg.rate, size, cfg.id)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range samples {
					p, err := loadtime.FromBytes(e.Encode(s.connection, s.seq, s.t))
					if err != nil {
						t.Fatalf("%+v: FromBytes: %v", s, err)
					}
					if p.Connections != cfg.connections || p.Rate != cfg.rate || p.Size != size {
						t.Errorf("%+v: FromBytes connections, rate, size = %d, %d, %d; want %d, %d, %d",
							s, p.Connections, p.Rate, p.Size, cfg.connections, cfg.rate, size)
					}
					if p.Time == nil || !p.Time.AsTime().Equal(s.t) {
						t.Errorf("%+v: FromBytes time = %v, want %v", s, p.Time, s.t)
					}
					if !bytes.Equal(p.Id, cfg.id[:]) {
						t.Errorf("%+v: FromBytes id = %x, want %x", s, p.Id, cfg.id)
					}
				}
			})
		}
	}
}

// TestSameBytesAsProtoMarshal checks that, where one padding field fits, our
// proto is exactly proto.Marshal of loadtime's Payload with that padding,
// followed by fields 7 and 8.
func TestSameBytesAsProtoMarshal(t *testing.T) {
	for _, cfg := range encoderConfigs {
		for _, size := range crossSizes {
			t.Run(fmt.Sprintf("%s/%d", cfg.name, size), func(t *testing.T) {
				e, err := payload.NewEncoder(cfg.connections, cfg.rate, size, cfg.id)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range samples {
					tx := e.Encode(s.connection, s.seq, s.t)
					got, fields := parseProto(t, tx)
					var padding []byte
					n := 0
					for _, f := range fields {
						if f.num == 6 {
							padding = f.data
							n++
						}
					}
					if n != 1 {
						continue // the gap: proto.Marshal never writes two padding fields
					}
					want, err := proto.MarshalOptions{Deterministic: true}.Marshal(&loadtime.Payload{
						Connections: cfg.connections,
						Rate:        cfg.rate,
						Size:        size,
						Time:        timestamppb.New(s.t),
						Id:          cfg.id[:],
						Padding:     padding,
					})
					if err != nil {
						t.Fatal(err)
					}
					if s.connection != 0 {
						want = protowire.AppendTag(want, 7, protowire.VarintType)
						want = protowire.AppendVarint(want, s.connection)
					}
					if s.seq != 0 {
						want = protowire.AppendTag(want, 8, protowire.VarintType)
						want = protowire.AppendVarint(want, s.seq)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%+v: proto\n%x\nwant\n%x", s, got, want)
					}
				}
			})
		}
	}
}

// TestDecodeLoadtime decodes txs made by loadtime's NewBytes, whose padding
// is random.
func TestDecodeLoadtime(t *testing.T) {
	times := []struct {
		name string
		ts   *timestamppb.Timestamp // nil: NewBytes sets the current time
	}{
		{"now", nil},
		{"fixed", timestamppb.New(testTime)},
		{"epoch", timestamppb.New(time.Unix(0, 0))},
	}
	for _, size := range []uint64{100, 300, 1024, 4096, 1 << 20} {
		for _, tm := range times {
			t.Run(fmt.Sprintf("%d/%s", size, tm.name), func(t *testing.T) {
				p := &loadtime.Payload{Connections: 512, Rate: 4, Size: size, Time: tm.ts, Id: testID[:]}
				tx, err := loadtime.NewBytes(p)
				if err != nil {
					t.Fatal(err)
				}
				got, err := payload.Decode(tx)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				want := payload.Header{Connections: 512, Rate: 4, Size: size, Time: p.Time.AsTime(), ID: testID}
				if !equalHeader(got, want) {
					t.Errorf("Decode = %+v, want %+v", got, want)
				}
			})
		}
	}
}
